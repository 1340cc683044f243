; Written for ValarMind's repo map (definitions and references).
(class_definition name: (identifier) @name) @definition.class
(mixin_declaration (identifier) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.enum
(extension_declaration name: (identifier) @name) @definition.class
(function_signature name: (identifier) @name) @definition.function
(constructor_signature name: (identifier) @name) @definition.method
(expression_statement (identifier) @name . (selector (argument_part))) @reference.call
(selector (unconditional_assignable_selector (identifier) @name)) @reference.call
(superclass (type_identifier) @name) @reference.class
