from valarmind_tui.cli import main

# The guard matters: the repo map's forkserver workers re-import the main module.
if __name__ == "__main__":
    raise SystemExit(main())
