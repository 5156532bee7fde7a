"""What the templates read.

The table's context, words in the reader's language, charts, QR codes, htmx answers.
"""
