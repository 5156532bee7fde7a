"""The routes: one blueprint per URL family, each registered by ``register(app)``."""
