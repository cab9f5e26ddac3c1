/* placeholder */
typedef int cli_placeholder_cmd_profile;
