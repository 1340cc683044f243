; Written for ValarMind's repo map (definitions and references).
(function name: (variable) @name) @definition.function
(signature name: (variable) @name) @definition.function
(data_type name: (name) @name) @definition.class
(newtype name: (name) @name) @definition.class
(type_synomym name: (name) @name) @definition.type
(class name: (name) @name) @definition.interface
(apply function: (variable) @name) @reference.call
