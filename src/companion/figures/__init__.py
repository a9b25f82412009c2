"""Figure functions, one module per chapter: results in, matplotlib Figure out."""
