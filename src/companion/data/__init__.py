"""Every dataset of the book, generated on the machine (nothing is downloaded).

Data modules import nothing of the book: they are torch and numpy only.
"""
