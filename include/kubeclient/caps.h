/* caps.h: the one cap policy for input from outside veltop (the API server, download URLs, the
 * kubeconfig and the files it names). Every limit is far above anything a working cluster sends,
 * so it only ever stops a broken or hostile peer from taking unbounded memory or CPU; when one
 * is hit, the user is told which and how large it is (never a silent cut). */
#pragma once

/* One buffered response body (a LIST page, a GET, a POST's answer). A page of Velero objects at
 * limit=500 is a few MB; a body that never ends is cut here instead of being buffered until the
 * timeout. Streams (watches, logs) are framed and have their own per-event caps. */
#define KC_CAP_BODY_BYTES ((size_t)64 << 20) /* 64 MiB */

/* The body of a failed answer, kept only for the error message. */
#define KC_CAP_ERR_BODY_BYTES ((size_t)1 << 20) /* 1 MiB */

/* Pages of one LIST followed through continue tokens: at 500 objects a page, 2 000 pages is a
 * million objects; a server handing out continue tokens forever is stopped here. */
#define KC_CAP_LIST_PAGES 2000

/* Objects of one LIST, pages together: a resourceVersion=0 list is one streamed answer whose
 * items go into the store as they arrive, so a body that never ends is stopped by its count (the
 * same million objects as the page cap), not by buffering. */
#define KC_CAP_LIST_ITEMS 1000000

/* HTTP redirects followed for one download (S3 and its gateways use one or two). */
#define KC_CAP_REDIRECTS 10L

/* A file the kubeconfig names (certificate-authority, client-certificate, client-key,
 * tokenFile), --cacert, and the system CA bundle the object store's extra CAs join: PEM bundles
 * and tokens are kilobytes (Debian's whole bundle ~220 KB); /dev/zero is not read forever. */
#define KC_CAP_FILE_BYTES ((size_t)4 << 20) /* 4 MiB */

/* A kubeconfig file itself, and how deeply its YAML may nest (real ones nest 4-6 levels). */
#define KC_CAP_KUBECONFIG_BYTES ((size_t)16 << 20) /* 16 MiB */
#define KC_CAP_YAML_DEPTH       64

/* A stored log (BackupLog/RestoreLog) once decompressed, and its lines: past these the pager
 * shows what it has and says the log was truncated (a 10 GiB gzip bomb stops at the cap). One
 * line is cut after KC_CAP_LOG_LINE_BYTES (a line of 10 GiB of zeros is not one line in memory). */
#define KC_CAP_LOG_BYTES      ((size_t)256 << 20) /* 256 MiB */
#define KC_CAP_LOG_LINES      1000000
#define KC_CAP_LOG_LINE_BYTES ((size_t)64 << 10) /* 64 KiB */

/* Resource types (rows) of one run's resource list artifact (BackupResourceList /
 * RestoreResourceList): a real cluster has hundreds (a few thousand with many CRDs); the types past
 * the first KC_CAP_RESOURCE_ROWS of a list are left out and counted, and the screen and --once say
 * so. The bytes of the list are KC_CAP_BODY_BYTES at most. */
#define KC_CAP_RESOURCE_ROWS 4096

/* Group/versions discovery asks the API server about (one GET each): a real cluster serves a few
 * hundred at most; a resource list naming a million (each its own x<N>.example.com/v1) would
 * have sent thousands of requests. Past the cap a kind's plural is unknown (then guessed). */
#define KC_CAP_DISCOVERY_GVS 512

/* An artifact download (stored log, results, resource list) slower than KC_CAP_DL_MIN_BPS bytes a
 * second over KC_CAP_DL_SLOW_SECS seconds is given up with a message: a store dripping a few
 * bytes a second (or answering and then sending nothing) would hold "downloading" for good. */
#define KC_CAP_DL_MIN_BPS   256L
#define KC_CAP_DL_SLOW_SECS 15L

/* kc_err.code when a cap above was hit (not an HTTP status). */
#define KC_ERR_CAPPED (-2)
/* kc_err.code when veltop ran out of descriptors (EMFILE, ENFILE): no network fault, and not a
 * reason to call the server unreachable (fdbudget.h). */
#define KC_ERR_NOFILE (-3)
