from valarmind_tui.cli import entry

# The guard matters: the repo map's forkserver workers re-import the main module.
if __name__ == "__main__":
    entry()
