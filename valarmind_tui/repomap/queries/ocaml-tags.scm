; Written for ValarMind's repo map (definitions and references).
(value_definition (let_binding pattern: (value_name) @name)) @definition.function
(type_definition (type_binding name: (type_constructor) @name)) @definition.type
(module_definition (module_binding (module_name) @name)) @definition.module
(class_definition (class_binding (class_name) @name)) @definition.class
(method_definition (method_name) @name) @definition.method
(application_expression function: (value_path (value_name) @name)) @reference.call
