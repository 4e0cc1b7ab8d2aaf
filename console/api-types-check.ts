import type { ApiData } from '../.generated/console-api-types.ts';
import type { AuditRow, BackupEvent, BackupJob, Certificate, NodeView, Notification, Role, Task, Telemetry } from './types.ts';

/**
 * The hand-written answers of types.ts checked against the generated ones where the OpenAPI document declares
 * them: a field the console reads that the API stops sending, or sends as another type, fails `tsc -p console`.
 */
type Assignable<A, B> = [A] extends [B] ? true : false;
export const whoami: Assignable<ApiData['GET /api/auth/whoami']['role'], Role> = true;
export const audit: Assignable<ApiData['GET /api/audit']['data'][number], AuditRow> = true;
export const certificate: Assignable<ApiData['GET /api/certificates']['data'][number], Certificate> = true;
export const pools: Assignable<ApiData['GET /api/zfs/dashboard/history']['pools'], Telemetry['pools']> = true;
export const arc: Assignable<ApiData['GET /api/zfs/dashboard/history']['arc'], Telemetry['arc']> = true;
export const cursors: Assignable<ApiData['GET /api/zfs/dashboard/history']['cursors'], Telemetry['cursors']> = true;
export const task: Assignable<ApiData['GET /api/tasks']['data'][number], Task> = true;
export const node: Assignable<Omit<ApiData['GET /api/cluster/nodes']['data'][number], 'inventory'>, Omit<NodeView, 'inventory'>> = true;
export const notification: Assignable<ApiData['GET /api/notifications']['data'][number], Notification> = true;
export const count: Assignable<ApiData['GET /api/notifications/count'], { active: number }> = true;
export const job: Assignable<ApiData['GET /api/cluster/backups/jobs']['data'][number], BackupJob> = true;
export const event: Assignable<ApiData['GET /api/cluster/backups/events/remote']['data'][number], BackupEvent> = true;
export const delta: Assignable<ApiData['GET /api/zfs/dashboard/history/delta'], Telemetry> = true;
