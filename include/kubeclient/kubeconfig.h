/* kubeconfig.h: loading a kubeconfig as kubectl does (files, merge, context, in-cluster) into the
 * connection settings of one cluster and user. */
#pragma once
#include <stddef.h>
#include "kubeclient/util.h"

typedef struct kc_exec_config {
    char *command; /* resolved against the kubeconfig's directory when it contains '/' */
    char **args;
    size_t nargs;
    char **env_names, **env_values;
    size_t nenv;
    char *api_version; /* client.authentication.k8s.io/v1 or v1beta1 */
    char *install_hint;
    int provide_cluster_info;
    char *interactive_mode; /* Never | IfAvailable | Always */
    /* provideClusterInfo: the cluster's client.authentication.k8s.io/exec extension as JSON
     * text (ExecCredential spec.cluster.config), NULL when the cluster has none */
    char *cluster_config;
} kc_exec_config;

typedef struct kc_rest_config {
    char *context;   /* the context used ("" for in-cluster) */
    char *cluster;   /* cluster entry name */
    char *user;      /* user entry name (shown in 401 messages) */
    char *namespace; /* the context's namespace, NULL if unset */
    char *server;    /* https://host:port */
    char *tls_server_name;
    int insecure_skip_tls_verify;
    int disable_compression;
    char *proxy_url;
    unsigned char *ca_data; /* PEM bytes, from -data or the file; NULL = system trust */
    size_t ca_len;
    unsigned char *client_cert_data; /* PEM */
    size_t client_cert_len;
    unsigned char *client_key_data; /* PEM */
    size_t client_key_len;
    char *token;      /* static token */
    char *token_file; /* absolute path; re-read at most once a minute */
    char *username, *password;
    /* impersonation (as, as-uid, as-groups, as-user-extra), sent as Impersonate-* headers */
    char *as_user, *as_uid;
    char **as_groups;
    size_t n_as_groups;
    char **as_extra_keys, **as_extra_values; /* one pair per value, in file order */
    size_t n_as_extra;
    /* exec plugin; NULL also when a static credential (token, tokenFile, basic auth, client
     * certificate) is given beside it: kubectl then uses that and never runs the plugin */
    kc_exec_config *exec;
    char *source_files; /* the files that were merged, ':'-joined, for messages */
    int in_cluster;
} kc_rest_config;

/* Where to look; NULL fields mean "as kubectl": $KUBECONFIG, ~/.kube/config, in-cluster. The env
 * and paths are injectable for tests. */
typedef struct kc_config_opts {
    const char *kubeconfig;     /* --kubeconfig: that file only */
    const char *context;        /* --context */
    const char *env_kubeconfig; /* value of $KUBECONFIG (NULL: read the environment) */
    const char *home;           /* $HOME (NULL: read the environment) */
    const char *sa_dir;         /* default /var/run/secrets/kubernetes.io/serviceaccount */
    const char *service_host, *service_port; /* NULL: read KUBERNETES_SERVICE_HOST/PORT */
    const char *pod_namespace;               /* NULL: read POD_NAMESPACE */
} kc_config_opts;

/* Returns NULL with err set (one line, no secrets) when the configuration cannot be used. */
kc_rest_config *kc_config_load(const kc_config_opts *opts, kc_err *err);
void kc_rest_config_free(kc_rest_config *cfg);
/* The context names of the merged kubeconfig files (as kc_config_load finds them), in file order;
 * a NULL-terminated array the caller frees (each name, then the array). NULL with err set when a
 * file cannot be read or parsed. */
char **kc_config_contexts(const kc_config_opts *opts, size_t *n, kc_err *err);
/* The kubeconfig's current-context (the merged files'), NULL when none is set. */
char *kc_config_current_context(const kc_config_opts *opts, kc_err *err);
/* A deep copy (the caller frees it with kc_rest_config_free). */
kc_rest_config *kc_rest_config_dup(const kc_rest_config *cfg);
