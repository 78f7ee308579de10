/* test_discovery.c: Kind -> plural from the API server's discovery documents: parsed exactly
 * (subresources skipped, Gateway is "gateways"), and asked of the in-process veltop-sim once per
 * group/version, a group it does not serve answering "not served". */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/caps.h"
#include "kubeclient/client.h"
#include "kubeclient/discovery.h"
#include "kubeclient/kubeconfig.h"
#include "kubeclient/loop.h"
#include "testutil.h"
#include "vsim.h"

START_TEST(resource_list_parses_to_kinds_and_plurals)
{
    const char *j = "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":"
                    "\"gateway.networking.k8s.io/v1\",\"resources\":["
                    "{\"name\":\"gateways\",\"singularName\":\"gateway\",\"namespaced\":true,"
                    "\"kind\":\"Gateway\",\"verbs\":[\"get\",\"list\"]},"
                    "{\"name\":\"gateways/status\",\"namespaced\":true,\"kind\":\"Gateway\"},"
                    "{\"name\":\"gatewayclasses\",\"namespaced\":false,\"kind\":\"GatewayClass\"},"
                    "{\"name\":\"httproutes\",\"kind\":\"HTTPRoute\"},{\"kind\":\"NoName\"}]}";
    char **k, **p;
    long n = kc_discovery_parse(j, strlen(j), &k, &p);
    ck_assert_int_eq(n, 3);
    ck_assert_str_eq(k[0], "Gateway");
    ck_assert_str_eq(p[0], "gateways");
    ck_assert_str_eq(k[1], "GatewayClass");
    ck_assert_str_eq(p[1], "gatewayclasses");
    ck_assert_str_eq(k[2], "HTTPRoute");
    ck_assert_str_eq(p[2], "httproutes");
    for (long i = 0; i < n; i++) free(k[i]), free(p[i]);
    free(k);
    free(p);
    ck_assert_int_eq(kc_discovery_parse("[]", 2, &k, &p), -1);
    ck_assert_int_eq(kc_discovery_parse("{\"kind\":\"Status\"}", 17, &k, &p), -1);
    ck_assert_ptr_null(k);
}
END_TEST

static int changes;

static void on_change(void *arg)
{
    (void)arg;
    changes++;
}

static int answered(void *arg)
{
    return kc_discovery_asking(arg) == 0;
}

START_TEST(sim_is_asked_once_per_group_version)
{
    tu_sim ts;
    tu_sim_start(&ts, (vsim_opts){0});
    tu_sim_connect(&ts);
    kc_discovery *d = kc_discovery_new(ts.client);
    kc_discovery_on_change(d, on_change, NULL);
    const char *pl;
    changes = 0;
    /* first asks: unknown yet */
    ck_assert_int_eq(kc_discovery_plural(d, "v1", "Pod", &pl), 0);
    ck_assert_int_eq(kc_discovery_plural(d, "velero.io/v1", "Backup", &pl), 0);
    ck_assert_int_eq(kc_discovery_plural(d, "gateway.networking.k8s.io/v1", "Gateway", &pl), 0);
    ck_assert_int_eq(kc_discovery_plural(d, "v1", "Namespace", &pl), 0); /* same gv: no 4th */
    ck_assert_int_eq(kc_discovery_asking(d), 3);
    /* a group version that is no path: refused, nothing asked */
    ck_assert_int_eq(kc_discovery_plural(d, "../../api/v1", "Pod", &pl), -1);
    ck_assert_int_eq(kc_discovery_plural(d, "a/b/c", "Pod", &pl), -1);
    ck_assert_int_eq(kc_discovery_plural(d, "v1?watch=1", "Pod", &pl), -1);
    ck_assert_int_eq(kc_discovery_asking(d), 3);
    ck_assert_int_eq(kc_loop_run_until(ts.loop, answered, d, 10000), 1);
    ck_assert_int_eq(changes, 3);
    ck_assert_int_eq(kc_discovery_plural(d, "v1", "Pod", &pl), 1);
    ck_assert_str_eq(pl, "pods");
    ck_assert_int_eq(kc_discovery_plural(d, "velero.io/v1", "Backup", &pl), 1);
    ck_assert_str_eq(pl, "backups");
    ck_assert_int_eq(kc_discovery_plural(d, "velero.io/v1", "PodVolumeBackup", &pl), 1);
    ck_assert_str_eq(pl, "podvolumebackups");
    /* the sim serves no gateway API: not served, and not asked again at once */
    ck_assert_int_eq(kc_discovery_plural(d, "gateway.networking.k8s.io/v1", "Gateway", &pl), -1);
    ck_assert_ptr_null(pl);
    ck_assert_int_eq(kc_discovery_plural(d, "velero.io/v1", "Gateway", &pl), -1);
    ck_assert_int_eq(kc_discovery_asking(d), 0);
    kc_discovery_free(d);
    kc_discovery_free(NULL);
    tu_sim_stop(&ts);
}
END_TEST

/* A resource list naming a million group versions sends no million requests: past the cap a new
 * one is not served, at once, and nothing is asked. Against an address that refuses
 * connections: 512 requests at once to the sim would be 512 of its threads (more than valgrind
 * runs). */
START_TEST(group_versions_asked_are_capped)
{
    kc_rest_config *cfg = xcalloc(1, sizeof *cfg);
    cfg->server = xstrdup("http://127.0.0.1:1");
    kc_err e = {0};
    kc_loop *loop = kc_loop_new();
    kc_client *c = kc_client_new(loop, cfg, &e);
    ck_assert_msg(c != NULL, "client: %s", e.msg);
    kc_discovery *d = kc_discovery_new(c);
    const char *pl;
    char gv[64];
    for (int i = 0; i < KC_CAP_DISCOVERY_GVS; i++) {
        snprintf(gv, sizeof gv, "x%d.example.com/v1", i);
        ck_assert_int_eq(kc_discovery_plural(d, gv, "Kind", &pl), 0);
    }
    ck_assert_int_eq(kc_discovery_asking(d), KC_CAP_DISCOVERY_GVS);
    ck_assert_int_eq(kc_discovery_plural(d, "velero.io/v1", "Backup", &pl), -1);
    ck_assert_int_eq(kc_discovery_plural(d, "v1", "Pod", &pl), -1);
    ck_assert_int_eq(kc_discovery_asking(d), KC_CAP_DISCOVERY_GVS);
    /* the ones asked are answered (here: refused), and still count */
    ck_assert_int_eq(kc_loop_run_until(loop, answered, d, 20000), 1);
    ck_assert_int_eq(kc_discovery_plural(d, "x0.example.com/v1", "Kind", &pl), -1);
    ck_assert_int_eq(kc_discovery_plural(d, "x1000.example.com/v1", "Kind", &pl), -1);
    ck_assert_int_eq(kc_discovery_asking(d), 0);
    kc_discovery_free(d);
    kc_client_free(c);
    kc_loop_free(loop);
    kc_rest_config_free(cfg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("discovery");
    TCase *tc = tcase_create("discovery");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, resource_list_parses_to_kinds_and_plurals);
    tcase_add_test(tc, sim_is_asked_once_per_group_version);
    tcase_add_test(tc, group_versions_asked_are_capped);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
