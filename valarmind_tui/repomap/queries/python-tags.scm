; From tree-sitter-python queries/tags.scm (MIT), adapted for ValarMind's repo map.
(module (expression_statement (assignment left: (identifier) @name) @definition.constant))

(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

(call
  function: [
      (identifier) @name
      (attribute
        attribute: (identifier) @name)
  ]) @reference.call

(class_definition
  superclasses: (argument_list [
    (identifier) @name
    (attribute attribute: (identifier) @name)
  ]) @reference.class)

(import_from_statement
  name: [
    (dotted_name (identifier) @name)
    (aliased_import name: (dotted_name (identifier) @name))
  ]) @reference.import

(type (identifier) @name) @reference.type
