"""Results: the row, the JSON Lines file (writer, lock, reading, resume), and the response
cache."""
