// A node's presence is a query over the nodes table, so it lives in the store (the task sweeper needs it too).
export { OFFLINE_AFTER_HEARTBEATS, onlineSql } from '#store/presence';
