from valarmind_tui.cli.main import entry

# The guard: importing this module (as a process pool may) must not start the app.
if __name__ == "__main__":
    entry()
