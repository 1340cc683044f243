; Written for ValarMind's repo map (definitions and references).
(call
  target: (identifier) @_kw
  (arguments [(identifier) @name (call target: (identifier) @name)
              (binary_operator left: (call target: (identifier) @name))])
  (#match? @_kw "^(def|defp|defmacro|defmacrop|defguard|defdelegate)$")) @definition.function
(call
  target: (identifier) @_kw
  (arguments (alias) @name)
  (#match? @_kw "^(defmodule|defprotocol|defimpl)$")) @definition.module
(call target: (identifier) @name) @reference.call
(call target: (dot right: (identifier) @name)) @reference.call
