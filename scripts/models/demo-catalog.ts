/**
 * The demo model set served from model_repository/ (see "Pinned decisions" in
 * the architecture notes): which models, versions, pipelines and labels.
 */

export type PipelineVersion = 1 | 2;

export interface DemoVersion {
  version: number;
  pipelineVersion: PipelineVersion;
  padding: 'fixed' | 'dynamic';
  /** Test repositories only: a graph that fails every inference (see `BertModelSpec.fault`). */
  fault?: 'run';
}

export type DemoOutput =
  | { kind: 'classification'; labels: readonly string[] }
  | { kind: 'embedding'; pooling: 'cls' | 'mean'; normalize: true };

export interface DemoModel {
  name: string;
  output: DemoOutput;
  versions: readonly DemoVersion[];
}

/** bert-wordpiece@1 pads to maxLength; @2 pads to the longest item in the batch. */
const v1: Omit<DemoVersion, 'version'> = { pipelineVersion: 1, padding: 'fixed' };
const v2: Omit<DemoVersion, 'version'> = { pipelineVersion: 2, padding: 'dynamic' };

export const DEMO_MODELS: readonly DemoModel[] = [
  {
    name: 'question-type-zh',
    output: {
      kind: 'classification',
      labels: [
        'definition',
        'reason',
        'method',
        'comparison',
        'quantity',
        'time',
        'location',
        'person',
        'yes_no',
        'opinion',
      ],
    },
    versions: [
      { version: 1, ...v1 },
      { version: 2, ...v2 },
    ],
  },
  {
    name: 'intent-zh',
    output: {
      kind: 'classification',
      labels: [
        'check_weather',
        'book_ticket',
        'play_music',
        'set_alarm',
        'order_status',
        'small_talk',
      ],
    },
    versions: [
      { version: 1, ...v1 },
      { version: 2, ...v2 },
      { version: 3, ...v2 },
    ],
  },
  {
    name: 'sentiment-en',
    output: { kind: 'classification', labels: ['negative', 'neutral', 'positive'] },
    versions: [{ version: 1, ...v2 }],
  },
  {
    name: 'text-embed-zh',
    output: { kind: 'embedding', pooling: 'mean', normalize: true },
    versions: [{ version: 1, ...v2 }],
  },
];

/** Weight seed of one version: every model version gets different weights. */
export function seedOf(model: DemoModel, version: DemoVersion): string {
  return `${model.name}@${version.version}`;
}
