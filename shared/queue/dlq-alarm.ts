import { setting } from '#shared/config/read';
import { nodeDeadLetterQueueName, queueConfig, type QueueConfig } from './config.ts';

/** The alarm watching one node's dead-letter queue (CloudWatch alarm names are per account and region). */
export const deadLetterAlarmName = (prefix: string, nodeId: string) => `${prefix}-${nodeId}-dlq-depth`;

/**
 * The CloudWatch alarm on a node's dead-letter queue: ALARM as soon as one message sits there (a task whose
 * message was received 5 times without being deleted: the task is never run). Node queues are created at
 * registration, not in the template, so their alarms are too; PutMetricAlarm is idempotent. Deployed only
 * (`HM_DLQ_ALARMS=true`, set by serverless.yml, and no emulator endpoint: the local one has no CloudWatch). `HM_ALARM_TOPIC_ARN`
 * (the stack's SNS topic) is notified.
 */
export async function ensureDeadLetterAlarm(nodeId: string, cfg: QueueConfig = queueConfig(), env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  if (cfg.endpoint || !setting('HM_DLQ_ALARMS', env)) return null;
  const { CloudWatchClient, PutMetricAlarmCommand } = await import('@aws-sdk/client-cloudwatch');
  const name = deadLetterAlarmName(cfg.prefix, nodeId);
  const topicArn = setting('HM_ALARM_TOPIC_ARN', env);
  const topic = topicArn ? [topicArn] : [];
  await new CloudWatchClient({ region: cfg.region, maxAttempts: 3 }).send(
    new PutMetricAlarmCommand({
      AlarmName: name,
      AlarmDescription: `tasks of node ${nodeId} dead-lettered: their messages were received 5 times and never deleted`,
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: nodeDeadLetterQueueName(cfg.prefix, nodeId) }],
      Statistic: 'Maximum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: topic,
      OKActions: topic,
    }),
  );
  return name;
}
