; Written for ValarMind's repo map (definitions and references).
(struct_specifier name: (type_identifier) @name body: (_)) @definition.class
(union_specifier name: (type_identifier) @name body: (_)) @definition.class
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(enum_specifier name: (type_identifier) @name body: (_)) @definition.type
(type_definition declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(namespace_definition name: (namespace_identifier) @name) @definition.module
(function_definition
  declarator: (function_declarator declarator: [
    (identifier) @name
    (field_identifier) @name
    (qualified_identifier name: (identifier) @name)
  ])) @definition.function
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator declarator: [
    (identifier) @name
    (qualified_identifier name: (identifier) @name)
  ]))) @definition.function
(field_declaration
  declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(declaration
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(preproc_function_def name: (identifier) @name) @definition.macro
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call
(base_class_clause (type_identifier) @name) @reference.class
(type_identifier) @name @reference.type
