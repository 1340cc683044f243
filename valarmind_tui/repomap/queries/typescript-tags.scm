; tree-sitter-typescript queries/tags.scm (MIT) combined with tree-sitter-javascript's, as TypeScript's own
; file covers only TS-specific patterns.
; include: ecmascript-common.scm
(extends_clause value: (identifier) @name) @reference.class

(function_signature
  name: (identifier) @name) @definition.function

(method_signature
  name: (property_identifier) @name) @definition.method

(abstract_method_signature
  name: (property_identifier) @name) @definition.method

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

(internal_module
  name: (identifier) @name) @definition.module

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(type_annotation
  (type_identifier) @name) @reference.type

(new_expression
  constructor: (identifier) @name) @reference.class

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name) @definition.enum

(implements_clause (type_identifier) @name) @reference.implementation
