/**
 * Every operation id each cluster service publishes (seed 000's tables, plus the 11 of the inference
 * endpoint lifecycle): 48 + 6 + 9 + 5 = 68. The generated-input suite (test/fuzz/cluster/) checks each
 * service's /openapi.json against these lists, so a new route fails it until it is fuzzed too;
 * manifest-processor's are split in three groups, one per test file of the suite.
 */
import type { ClusterServiceName } from '../../contracts/routing.js';

const PROBES = ['kubernetes_health_check_healthz_get', 'kubernetes_readiness_check_readyz_get'];

/** manifest-processor's Kubernetes-facing operations and what it says about itself. */
export const MANIFEST_PROCESSOR_KUBERNETES = [
  ...PROBES,
  'root__get',
  'health_check_api_v1_health_get',
  'get_service_status_api_v1_status_get',
  'get_job_validation_policy_api_v1_policy_get',
  'submit_manifests_api_v1_manifests_post',
  'validate_manifests_api_v1_manifests_validate_post',
  'get_resource_status_api_v1_manifests__namespace___name__get',
  'delete_resource_api_v1_manifests__namespace___name__delete',
  'list_jobs_api_v1_jobs_get',
  'bulk_delete_jobs_api_v1_jobs_delete',
  'get_job_api_v1_jobs__namespace___name__get',
  'delete_job_api_v1_jobs__namespace___name__delete',
  'get_job_events_api_v1_jobs__namespace___name__events_get',
  'get_job_logs_api_v1_jobs__namespace___name__logs_get',
  'get_job_metrics_api_v1_jobs__namespace___name__metrics_get',
  'get_job_pods_api_v1_jobs__namespace___name__pods_get',
  'get_pod_logs_api_v1_jobs__namespace___name__pods__pod_name__logs_get',
  'retry_job_api_v1_jobs__namespace___name__retry_post',
];

/** manifest-processor's operations on the central tables and its cost front. */
export const MANIFEST_PROCESSOR_CENTRAL = [
  'submit_job_to_queue_api_v1_queue_jobs_post',
  'list_queued_jobs_api_v1_queue_jobs_get',
  'get_queued_job_api_v1_queue_jobs__job_id__get',
  'cancel_queued_job_api_v1_queue_jobs__job_id__delete',
  'poll_and_process_jobs_api_v1_queue_poll_post',
  'get_queue_stats_api_v1_queue_stats_get',
  'list_templates_api_v1_templates_get',
  'create_template_api_v1_templates_post',
  'get_template_api_v1_templates__name__get',
  'delete_template_api_v1_templates__name__delete',
  'create_job_from_template_api_v1_jobs_from_template__name__post',
  'list_webhooks_api_v1_webhooks_get',
  'create_webhook_api_v1_webhooks_post',
  'delete_webhook_api_v1_webhooks__webhook_id__delete',
  'list_cost_reports_api_v1_cost_reports_get',
  'generate_cost_report_api_v1_cost_reports_post',
  'get_cost_status_api_v1_cost_status_get',
];

/** manifest-processor's inference endpoint lifecycle (docs/inference-endpoints.md). */
export const MANIFEST_PROCESSOR_INFERENCE = [
  'create_inference_endpoint_api_v1_inference_endpoints_post',
  'list_inference_endpoints_api_v1_inference_endpoints_get',
  'get_inference_endpoint_api_v1_inference_endpoints__name__get',
  ...['scale', 'image', 'stop', 'start', 'canary', 'promote', 'rollback'].map(
    (action) => `${action}_inference_endpoint_api_v1_inference_endpoints__name__${action}_post`,
  ),
  'delete_inference_endpoint_api_v1_inference_endpoints__name__delete',
];

const proxy = ['root', 'path'].flatMap((kind) =>
  ['get', 'post', 'head'].map((method) =>
    kind === 'root'
      ? `proxy_inference_root_inference__endpoint_name__${method}`
      : `proxy_inference_path_inference__endpoint_name___upstream_path__${method}`,
  ),
);

export const OPERATIONS: Record<ClusterServiceName, readonly string[]> = {
  'manifest-processor': [
    ...MANIFEST_PROCESSOR_KUBERNETES,
    ...MANIFEST_PROCESSOR_CENTRAL,
    ...MANIFEST_PROCESSOR_INFERENCE,
  ],
  'health-monitor': [
    ...PROBES,
    'root__get',
    'health_check_api_v1_health_get',
    'get_metrics_api_v1_metrics_get',
    'get_status_api_v1_status_get',
  ],
  'inference-proxy': [...PROBES, 'root__get', ...proxy],
  'cost-monitor': [
    ...PROBES,
    'list_reports_internal_reports_get',
    'generate_adhoc_report_internal_reports_post',
    'get_status_internal_status_get',
  ],
};
