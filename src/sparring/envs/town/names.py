"""Character names: character ``a`` is ``NAMES[a]`` in every text the town writes."""

NAMES = (
    "Ada", "Ben", "Cora", "Dan", "Eve", "Finn", "Gwen", "Hugo", "Iris", "Jack", "Kira", "Leo", "Mona", "Ned", "Olga",
    "Pip", "Quinn", "Rosa", "Sam", "Tess", "Ugo", "Vera", "Walt", "Xena", "Yuri", "Zoe", "Abel", "Bea", "Cyrus",
    "Dora", "Emil", "Flora", "Gus", "Hana", "Ivan", "June", "Karl", "Lena", "Milo", "Nina", "Otto", "Pia", "Rex",
    "Sara", "Theo", "Uma", "Vic", "Wren", "Yann", "Zara", "Arlo", "Bram", "Cleo", "Dirk", "Elsa", "Fred", "Gina",
    "Hal", "Ines", "Joel", "Kate", "Lou", "Max", "Nora",
)
