import { z } from 'zod';

/**
 * The subset of kustomize's `Kustomization` this renderer implements. Strict: a field it does
 * not implement is an error naming the field, never silently ignored.
 */
const patchTarget = z
  .object({
    group: z.string().optional(),
    version: z.string().optional(),
    kind: z.string().optional(),
    name: z.string().optional(),
    namespace: z.string().optional(),
    labelSelector: z.string().optional(),
  })
  .strict();

const patch = z
  .object({
    path: z.string().optional(),
    patch: z.string().optional(),
    target: patchTarget.optional(),
  })
  .strict()
  .refine((p) => (p.path === undefined) !== (p.patch === undefined), {
    message: 'a patch needs exactly one of `path` or `patch`',
  });

const generatorOptions = z
  .object({
    labels: z.record(z.string()).optional(),
    annotations: z.record(z.string()).optional(),
    disableNameSuffixHash: z.boolean().optional(),
  })
  .strict();

const generator = z
  .object({
    name: z.string().min(1),
    namespace: z.string().optional(),
    behavior: z.enum(['create', 'merge', 'replace']).optional(),
    files: z.array(z.string()).optional(),
    literals: z.array(z.string()).optional(),
    envs: z.array(z.string()).optional(),
    type: z.string().optional(),
    options: generatorOptions.optional(),
  })
  .strict();

const image = z
  .object({
    name: z.string().min(1),
    newName: z.string().optional(),
    newTag: z.string().optional(),
    digest: z.string().optional(),
  })
  .strict();

const labelSet = z
  .object({
    pairs: z.record(z.string()),
    includeSelectors: z.boolean().optional(),
    includeTemplates: z.boolean().optional(),
  })
  .strict();

export const kustomizationSchema = z
  .object({
    apiVersion: z.literal('kustomize.config.k8s.io/v1beta1').optional(),
    kind: z.literal('Kustomization').optional(),
    namespace: z.string().optional(),
    resources: z.array(z.string()).optional(),
    patches: z.array(patch).optional(),
    configMapGenerator: z.array(generator).optional(),
    secretGenerator: z.array(generator).optional(),
    generatorOptions: generatorOptions.optional(),
    labels: z.array(labelSet).optional(),
    commonLabels: z.record(z.string()).optional(),
    images: z.array(image).optional(),
  })
  .strict();

export type Kustomization = z.infer<typeof kustomizationSchema>;
export type PatchTarget = z.infer<typeof patchTarget>;
export type GeneratorSpec = z.infer<typeof generator>;
export type ImageOverride = z.infer<typeof image>;
