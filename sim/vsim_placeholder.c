/* vsim_placeholder.c: keeps the vsim library non-empty until the sim modules land. */
int vsim_placeholder;
