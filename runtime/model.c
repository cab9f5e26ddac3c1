/* placeholder: being written */
typedef int apo__placeholder_model;
