; Written for ValarMind's repo map (definitions and references).
(function_declaration name: [
  (identifier) @name
  (dot_index_expression field: (identifier) @name)
  (method_index_expression method: (identifier) @name)
]) @definition.function
(assignment_statement
  (variable_list name: [(identifier) @name (dot_index_expression field: (identifier) @name)])
  (expression_list value: (function_definition))) @definition.function
(function_call name: [
  (identifier) @name
  (dot_index_expression field: (identifier) @name)
  (method_index_expression method: (identifier) @name)
]) @reference.call
