/**
 * Every string the console shows for an API answer, in one catalogue (English in this release): the envelope's
 * `message` code becomes a sentence, never raw JSON. An unknown code reads as itself with its detail.
 */
const MESSAGES: Record<string, string> = {
  unauthorized: 'The token was not accepted. Sign in again.',
  forbidden: 'Your role may not do this.',
  validation_failed: 'The request was not valid.',
  network_error: 'The API could not be reached.',
  bad_answer: 'The API answered something that is not JSON.',
  task_cancelled: 'The task was cancelled before it started.',
  task_cancel_requested: 'Cancel requested: the agent stops the task and undoes what it can.',
  task_already_finished: 'The task had already finished.',
  task_not_found: 'There is no such task.',
  notifications_dismissed: 'Notifications dismissed.',
  notification_dismissed: 'Notification dismissed.',
  notification_not_found: 'There is no such notification.',
  jail_migration_queued: 'Migration queued: follow it in the task panel.',
  jail_not_found: 'There is no such jail.',
  jail_busy: 'The jail is busy with another task.',
  node_offline: 'The node is offline.',
  no_migration_target: 'No other online node can take this jail.',
  node_not_member: 'That node is not a member of the cluster.',
  cluster_node_not_found: 'There is no such node.',
  device_replacement_queued: 'Replacement queued: follow the resilver in the task panel.',
  device_not_in_pool: 'That device is not in the pool.',
  device_in_use: 'That disk is already in use.',
  resource_busy: 'Another task is already working on it.',
  pool_not_found: 'There is no such pool.',
  pool_not_managed: 'That pool is not reported by any node.',
  vm_not_found: 'There is no such VM.',
  jail_power_queued: 'Queued: follow it in the task panel.',
  vm_power_queued: 'Queued: follow it in the task panel.',
  jail_already_running: 'The jail is already running: nothing to do.',
  jail_already_stopped: 'The jail is already stopped: nothing to do.',
  vm_already_running: 'The VM is already running: nothing to do.',
  vm_already_shut_off: 'The VM is already shut off: nothing to do.',
  vm_busy: 'The VM is busy with another task.',
  vm_orphaned: 'libvirt no longer defines this VM: purge its registration.',
  backup_job_not_found: 'There is no such backup job.',
  certificate_not_found: 'There is no such certificate.',
  route_not_found: 'The API has no such route.',
  cluster_joined: 'The node joined the cluster.',
  cluster_already_member: 'The node is already a member.',
  cluster_key_mismatch: 'The cluster key is wrong.',
  notification_channels_updated: 'Channel settings saved.',
  notification_rule_created: 'Rule created.',
  notification_rule_updated: 'Rule saved.',
  notification_rules_deleted: 'Rules deleted.',
  notification_rule_not_found: 'There is no such rule.',
  notification_template_unknown: 'There is no such event.',
  notification_target_unknown: 'The event has no such target.',
  invalid_url: 'The URL is not valid.',
  nothing_to_change: 'Nothing to change: fill in a field first.',
  nothing_selected: 'Select at least one rule first.',
  backup_job_created: 'Backup job created.',
  backup_job_updated: 'Backup job saved.',
  backup_job_deleted: 'Backup job deleted.',
  backup_job_busy: 'The backup job is busy with a task; try again when it ends.',
  backup_job_has_no_target: 'The backup job has no target: edit it to choose one.',
  backup_run_queued: 'Backup run queued: follow it in the task panel.',
  internal_error: 'The API failed; the error is in its log.',
};

export function sentence(code: string, detail?: string): string {
  const known = MESSAGES[code];
  if (known) return detail ? `${known} ${detail.charAt(0).toUpperCase()}${detail.slice(1)}.`.replace(/\.\.$/, '.') : known;
  const words = code.replace(/_/g, ' ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}${detail ? `: ${detail}` : ''}.`;
}

/** A success code as a sentence (actions show the API's own answer). */
export const said = (code: string) => MESSAGES[code] ?? sentence(code);
