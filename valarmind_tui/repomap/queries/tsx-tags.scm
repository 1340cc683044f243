; TSX uses TypeScript's patterns.
; include: typescript-tags.scm
