"""The error every agents service raises for input it refuses (the API maps it to HTTP 400)."""


class InvalidInput(ValueError):
    pass
