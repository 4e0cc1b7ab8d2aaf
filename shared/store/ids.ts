// row ids travel on the agent wire too (task ids, attempts): declared there once
export { id32 } from '#shared/agent-api/ids';
