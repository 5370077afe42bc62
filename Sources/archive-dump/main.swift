print("archive-dump: not implemented yet")
