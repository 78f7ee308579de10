/* objtext.h: an API object as text for the describe pager: YAML as kubectl -o yaml prints it
 * (emitted with libyaml: keys sorted, sequences not indented under their key, strings that would
 * read as another type double-quoted), and a summary in the shape of `velero backup describe
 * --details` (`velero restore describe --details`, restore_describer.go; other kinds as
 * `kubectl describe` lays out fields). */
#pragma once
#include <cjson/cJSON.h>

#include "kubeclient/util.h"

/* Appends obj as YAML to out; returns 0, or -1 (out unchanged past what was written) when the
 * emitter fails. */
int objtext_yaml(const cJSON *obj, kc_buf *out);
/* Appends the describe summary of obj (a Backup, Restore, or any object) to out; a run's pod
 * volumes unknown. */
void objtext_describe(const cJSON *obj, kc_buf *out);

struct vl_volume;
/* As objtext_describe for a run whose volumes veltop watches (v[0..n)): a backup's in
 * "Backup Volumes:" after its snapshots, as velero backup describe --details; a restore's
 * pod volume restores last. */
void objtext_describe_run(const cJSON *obj, const struct vl_volume *const *v, size_t n,
                          kc_buf *out);
/* Appends the pod volumes of a run as `velero backup|restore describe --details` lists them (its
 * PodVolumeBackups or PodVolumeRestores of v[0..n), the others skipped): by phase in Velero's
 * order, by pod "ns/name" sorted, the volumes sorted with their progress or size. "Pod Volume
 * Backups: <none included>" for a backup without; nothing for a restore without. */
void objtext_describe_pod_volumes(const struct vl_volume *const *v, size_t n, int restore,
                                  kc_buf *out);
