/*
 * call_report.h: the report of a call (apo_report, docs/api.md) filled from its run
 * (call_report.c). Private to core/.
 */
#ifndef APO_RUNTIME_CORE_CALL_REPORT_H
#define APO_RUNTIME_CORE_CALL_REPORT_H

#include <stdint.h>

#include "core/run_phases.h"

/* Fills r from the run s of plan p for workload w: its makespan (modelled: on the devices'
 * virtual clocks) and its count of outputs that overflowed. Every field before r->devices is
 * cleared first; the device entries past the runtime's devices are left as they are. */
void apo__fill_report(const apo__run_state *s, const apo__plan *p, const apo_workload *w,
                      double makespan_s, int modelled, uint64_t nonfinite, apo_report *r);

#endif /* APO_RUNTIME_CORE_CALL_REPORT_H */
