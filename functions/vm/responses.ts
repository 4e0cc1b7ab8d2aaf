import { isoTime } from '#http/responses/time';
import { VM_STATES } from '#shared/domain/vms/types';

/** The `data` schemas of the VM endpoints, from what shared/domain/vms answers. */

const id = { type: 'integer', minimum: 1 } as const;
const taskId = { ...id, description: 'the task that applies the change on the host (GET /api/tasks/{id})' } as const;

/** GET /api/vm/{rid}: the VM as the store holds it, secrets shown as the reader may see them (vmOptionsView). */
export const vmViewSchema = {
  title: 'VmView',
  type: 'object',
  properties: {
    rid: id,
    name: { type: 'string' },
    nodeId: { type: 'string' },
    state: { type: 'string', enum: VM_STATES },
    /** the libvirt domain name */
    domain: { type: 'string' },
    options: {
      type: 'object',
      properties: {
        qemuGuestAgent: { type: 'boolean' },
        shutdownWaitTime: { type: 'integer', minimum: 0, description: 'seconds' },
        cloudInit: {
          type: 'object',
          properties: {
            /** user data and meta-data: null for readers below operator (whether set: dataSet, metadataSet) */
            data: { type: ['string', 'null'] },
            dataSet: { type: 'boolean' },
            metadata: { type: ['string', 'null'] },
            metadataSet: { type: 'boolean' },
            networkConfig: { type: 'string' },
          },
          required: ['data', 'dataSet', 'metadata', 'metadataSet', 'networkConfig'],
          additionalProperties: false,
        },
        vnc: {
          type: 'object',
          properties: {
            enabled: { type: 'boolean' },
            bind: { type: 'string' },
            /** null only while VNC is off and no port was ever chosen */
            port: { type: ['integer', 'null'] },
            resolution: { type: 'string' },
            wait: { type: 'boolean' },
            /** a password is set (never shown) */
            auth: { type: 'boolean' },
            passwordSet: { type: 'boolean' },
          },
          required: ['enabled', 'bind', 'port', 'resolution', 'wait', 'auth', 'passwordSet'],
          additionalProperties: false,
        },
      },
      required: ['qemuGuestAgent', 'shutdownWaitTime', 'cloudInit', 'vnc'],
      additionalProperties: false,
    },
    macObjects: {
      type: 'array',
      items: {
        type: 'object',
        /** sharedWith: the other VMs bound to the same MAC object */
        properties: { id, mac: { type: 'string' }, sharedWith: { type: 'array', items: id } },
        required: ['id', 'mac', 'sharedWith'],
        additionalProperties: false,
      },
    },
    datasets: { type: 'array', items: { type: 'string' } },
    updatedAt: isoTime,
  },
  required: ['rid', 'name', 'nodeId', 'state', 'domain', 'options', 'macObjects', 'datasets', 'updatedAt'],
  additionalProperties: false,
} as const;

/** E5: the option as set. */
export const guestAgentSetSchema = {
  type: 'object',
  properties: { rid: id, enabled: { type: 'boolean' }, taskId },
  required: ['rid', 'enabled', 'taskId'],
  additionalProperties: false,
} as const;

/** E6: the wait time as set. */
export const waitTimeSetSchema = {
  type: 'object',
  properties: { rid: id, waitTime: { type: 'integer', description: 'seconds' }, taskId },
  required: ['rid', 'waitTime', 'taskId'],
  additionalProperties: false,
} as const;

/** E17: the cloud-init texts as stored (to the operator who sent them). */
export const cloudInitSetSchema = {
  type: 'object',
  properties: { rid: id, data: { type: 'string' }, metadata: { type: 'string' }, networkConfig: { type: 'string' }, taskId },
  required: ['rid', 'data', 'metadata', 'networkConfig', 'taskId'],
  additionalProperties: false,
} as const;

/** E19: the VNC configuration as stored; the password is never answered, `vncAuth` says whether one is set. */
export const vncSetSchema = {
  type: 'object',
  properties: {
    rid: id,
    vncEnabled: { type: 'boolean' },
    vncBind: { type: 'string' },
    vncPort: { type: ['integer', 'null'] },
    vncResolution: { type: 'string' },
    vncWait: { type: 'boolean' },
    vncAuth: { type: 'boolean' },
    taskId,
  },
  required: ['rid', 'vncEnabled', 'vncBind', 'vncPort', 'vncResolution', 'vncWait', 'vncAuth', 'taskId'],
  additionalProperties: false,
} as const;

/** E10: the spec's Purge result, plus the task that removes the runtime files on the host. */
export const purgeResultSchema = {
  title: 'PurgeResult',
  type: 'object',
  properties: {
    deletedMacObjectIds: { type: 'array', items: id },
    retainedDatasets: { type: 'array', items: { type: 'string' } },
    retainedMacObjectIds: { type: 'array', items: id },
    warnings: { type: 'array', items: { type: 'string' } },
    taskId,
  },
  required: ['deletedMacObjectIds', 'retainedDatasets', 'retainedMacObjectIds', 'warnings', 'taskId'],
  additionalProperties: false,
} as const;
