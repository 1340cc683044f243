from valarmind_tui.cli import main

raise SystemExit(main())
