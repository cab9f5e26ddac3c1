/*
 * How busy the machine's processors are, from Linux's pressure stall information
 * (/proc/pressure/cpu): the share of recent time in which some runnable thread waited for a
 * processor. The runtime asks once for each cpu device, when it opens it, so that on a
 * machine already busy with other work the device's first shared runs do not wait for a
 * helper the scheduler preempted (team_rule.h; docs/scheduling.md, "A machine busy from the
 * start").
 */
#ifndef APO_RUNTIME_DEVICES_CPU_PRESSURE_H
#define APO_RUNTIME_DEVICES_CPU_PRESSURE_H

/* The file read, unless APPORTION_CPU_PRESSURE_FILE names another, or is this word: never
 * read. */
#define APO_CPU_PRESSURE_FILE "/proc/pressure/cpu"
#define APO_CPU_PRESSURE_OFF "off"

/* The "some avg10" figure of the text of a pressure file: the percentage (0 to 100) of the
 * last 10 seconds in which some thread waited for a processor. Returns 0 and sets *avg10,
 * or -1 when the text has no such figure or it is not a percentage. */
int apo__cpu_pressure_parse(const char *text, double *avg10);

/* The figure from the file at `path` (NULL: APO_CPU_PRESSURE_FILE), or -1 when there is none
 * (a kernel without pressure stall information, a container that hides it, a malformed
 * file, `path` APO_CPU_PRESSURE_OFF). */
double apo__cpu_pressure_avg10(const char *path);

#endif
