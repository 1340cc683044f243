; From tree-sitter-javascript queries/tags.scm (MIT), doc-comment captures removed.
; include: ecmascript-common.scm
(class_heritage (identifier) @name) @reference.class
