; Written for ValarMind's repo map (definitions and references).
(function_definition name: (word) @name) @definition.function
(command name: (command_name (word) @name)) @reference.call
