; Written for ValarMind's repo map (definitions and references).
(module_definition name: (identifier) @name) @definition.module
(function_definition (signature (call_expression . (identifier) @name))) @definition.function
(assignment . (call_expression . (identifier) @name)) @definition.function
(struct_definition (type_head (identifier) @name)) @definition.class
(abstract_definition (type_head (identifier) @name)) @definition.class
(macro_definition (signature (call_expression . (identifier) @name))) @definition.macro
(call_expression . (identifier) @name) @reference.call
