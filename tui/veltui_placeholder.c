/* veltui_placeholder.c: keeps the veltui library non-empty until the program modules land. */
int veltui_placeholder;
