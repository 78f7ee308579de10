/* fuzz_kubeconfig.c: a kubeconfig file (YAML), loaded as veltop loads one. The input is handed
 * over as a memfd so the loader reads it from a path, as it does in use. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "kubeclient/kubeconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("kubeconfig", 0);
    if (fd < 0) return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    kc_config_opts o = {.kubeconfig = path,
                        .env_kubeconfig = "",
                        .home = "/nonexistent/veltop-fuzz",
                        .service_host = "",
                        .service_port = ""};
    kc_err err;
    kc_rest_config_free(kc_config_load(&o, &err));
    close(fd);
    return 0;
}
