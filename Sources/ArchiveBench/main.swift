print("archive-bench: not implemented yet")
