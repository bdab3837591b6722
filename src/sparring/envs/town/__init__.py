"""`town`: a multi-agent world of characters with needs, goods, skills and goals (see env.py)."""
