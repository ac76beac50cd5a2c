import type { ModelConfig } from '@mesh/model-repository';
import type { Logger } from 'pino';
import type { HostMetrics } from '../core/host.metrics';
import {
  ModelNotFoundError,
  ModelUnavailableError,
  InvalidInferenceError,
} from '../core/model-host.errors';
import type { ModelVersionRuntime } from '../core/model-version-runtime';
import { workersKeptPoolNice } from '../execution/pool-thread-priority';
import { BuildMemoryMeter } from './build-memory-meter';
import { MemoryBudgetService } from './memory-budget.service';
import type { ModelFiles, ModelFilesRepository } from './model-files.repository';
import { indexRows, type ModelEntry, type ModelIndexEntry } from './model-index';
import { loadModelVersion } from './model-version-builder';
import { ModelLoadError } from './model-load.errors';
import { checkPlatform, type SessionDefaults } from './model-version-loader';
import { planBuilds, swapIn, type BuildPlan, type BuildResult } from './version-rebuild-plan';

export type ControlMode = 'none' | 'explicit';

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Memory options of the host: the budget (undefined = unlimited) and the build meter. */
export interface HostMemoryOptions {
  budgetMb?: number;
  /** One per process: builds it measures run one after another. */
  meter?: BuildMemoryMeter;
}

/**
 * Owns which model versions serve. A load builds every selected version fully before swapping
 * it in; a failed version keeps whatever served before. Unload drains in-flight requests.
 */
export class ModelManagerService {
  private readonly models = new Map<string, ModelEntry>();
  private readonly locks = new Map<string, Promise<void>>();
  private warnedOfWorkerNice = false;
  private started = false;
  private readonly meter: BuildMemoryMeter;
  readonly memory: MemoryBudgetService;

  constructor(
    private readonly repo: ModelFilesRepository,
    private readonly mode: ControlMode,
    private readonly defaults: SessionDefaults,
    private readonly metrics: HostMetrics,
    private readonly logger: Logger,
    memory: HostMemoryOptions = {},
  ) {
    this.meter = memory.meter ?? new BuildMemoryMeter();
    this.memory = new MemoryBudgetService(
      memory.budgetMb,
      defaults.cores,
      metrics,
      () => this.runtimes(),
      (path) => repo.fileSize(path),
    );
  }

  /** Loads the startup set: everything in `none` mode, `--load-model` names in `explicit`. */
  async start(loadModels: string[]): Promise<void> {
    const all = await this.repo.listModels();
    const names = this.mode === 'none' || loadModels.includes('*') ? all : loadModels;
    for (const name of names) {
      // One bad model never stops the others; its reason shows in the index.
      await this.load(name).catch((err: unknown) =>
        this.logger.warn({ model: name, err: errorText(err) }, 'model failed to load'),
      );
    }
    this.started = true;
  }

  get controlMode(): ControlMode {
    return this.mode;
  }

  /**
   * Ready once the startup loads have finished (each model either serves or shows its reason).
   * Later loads through the repository API never take the server out of rotation.
   */
  isReady(): boolean {
    return this.started;
  }

  async index(readyOnly: boolean): Promise<ModelIndexEntry[]> {
    const names = new Set([...(await this.repo.listModels()), ...this.models.keys()]);
    return indexRows([...names].sort(), this.models, readyOnly);
  }

  /** The runtime serving `name` at `version` ('' = the highest ready version). */
  runtime(name: string, version: string): ModelVersionRuntime {
    const m = this.models.get(name);
    if (!m) throw new ModelNotFoundError(`unknown model: '${name}'`);
    if (version === '') {
      const latest = [...m.serving.keys()].sort((a, b) => Number(b) - Number(a))[0];
      const rt = latest === undefined ? undefined : m.serving.get(latest);
      if (!rt)
        throw new ModelUnavailableError(
          `model '${name}' has no ready version${m.reason ? `: ${m.reason}` : ''}`,
        );
      return rt;
    }
    if (!/^\d+$/.test(version))
      throw new InvalidInferenceError(`model version '${version}' is not a number`);
    const rt = m.serving.get(version);
    if (!rt) {
      const reason = m.unavailable.get(version);
      if (reason)
        throw new ModelUnavailableError(
          `model '${name}' version ${version} is not ready: ${reason}`,
        );
      throw new ModelNotFoundError(`unknown version ${version} of model '${name}'`);
    }
    return rt;
  }

  /** Every serving runtime, optionally narrowed to one model / version. */
  runtimes(name = '', version = ''): ModelVersionRuntime[] {
    if (name !== '')
      return version === ''
        ? [...(this.models.get(name)?.serving.values() ?? [])]
        : [this.runtime(name, version)];
    return [...this.models.values()].flatMap((m) => [...m.serving.values()]);
  }

  configOf(name: string): ModelConfig {
    const m = this.models.get(name);
    if (!m?.config) throw new ModelNotFoundError(`unknown model: '${name}'`);
    return m.config;
  }

  /**
   * RepositoryModelLoad: (re)loads `name`; resolves once the new versions serve. `config` is
   * the load's JSON ModelConfig parameter; its version_policy decides which versions serve, so
   * a load naming only version 2 retires version 1 (listed UNAVAILABLE / `unloaded`).
   */
  load(name: string, config?: string): Promise<void> {
    return this.serialized(name, () => this.doLoad(name, config));
  }

  /** RepositoryModelUnload: stops new requests, lets in-flight ones finish, frees the sessions. */
  unload(name: string): Promise<void> {
    return this.serialized(name, async () => {
      const m = this.models.get(name);
      if (!m) {
        if (await this.repo.exists(name)) return;
        throw new ModelNotFoundError(`unknown model: '${name}'`);
      }
      const runtimes = [...m.serving.entries()];
      m.serving.clear();
      m.builtFrom.clear();
      this.memory.servingChanged(
        [],
        runtimes.map(([, rt]) => rt),
      );
      m.state = 'UNLOADING';
      await Promise.all(runtimes.map(([, rt]) => rt.drain()));
      for (const [v] of runtimes) m.unavailable.set(v, 'unloaded');
      m.state = 'UNAVAILABLE';
      m.reason = 'unloaded';
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.models.keys()].map((n) => this.unload(n)));
  }

  checkControlAllowed(): void {
    if (this.mode !== 'explicit') {
      throw new ModelUnavailableError(
        'explicit model load / unload is not allowed: start the host with --model-control-mode=explicit',
      );
    }
  }

  private async doLoad(name: string, override?: string): Promise<void> {
    if (!(await this.repo.exists(name)))
      throw new ModelNotFoundError(`no model '${name}' in the model repository`);
    const entry: ModelEntry = this.models.get(name) ?? {
      serving: new Map(),
      builtFrom: new Map(),
      unavailable: new Map(),
      reason: '',
      state: 'LOADING',
    };
    this.models.set(name, entry);
    if (entry.serving.size === 0) entry.state = 'LOADING';
    const files = await this.readFiles(name, entry, override);
    const plan = await planBuilds(this.repo, files, entry);
    // The budget's say comes before any session starts: a refusal leaves what serves as it was.
    const release = await this.memory
      .admit(files, entry.serving, plan, (v) => this.repo.modelFile(files, v))
      .catch((err: unknown) => {
        this.failModel(entry, errorText(err));
        this.logger.warn({ model: name, err: errorText(err) }, 'load refused by the memory budget');
        throw err;
      });
    let built: BuildResult;
    try {
      built = await this.buildVersions(files, plan);
      const retired = swapIn(entry, files, built);
      this.memory.servingChanged([...built.fresh.values()], retired);
    } finally {
      release();
    }
    const { fresh, failed } = built;
    if (failed.size > 0) {
      const detail = [...failed].map(([v, r]) => `version ${v}: ${r}`).join('; ');
      this.logger.warn(
        { model: name, failed: Object.fromEntries(failed) },
        `model '${name}' failed to load some versions`,
      );
      throw new ModelLoadError(`failed to load '${name}': ${detail}`);
    }
    this.logger.info({ model: name, versions: [...fresh.keys()] }, `model '${name}' ready`);
  }

  /** config.pbtxt, platform and selected versions; a failure here touches no version. */
  private async readFiles(name: string, entry: ModelEntry, override?: string): Promise<ModelFiles> {
    try {
      const files = await this.repo.read(name, override);
      checkPlatform(files.config);
      if (files.versions.length === 0)
        throw new ModelLoadError('no version directory matches the version_policy');
      return files;
    } catch (err: unknown) {
      // A bad `config` parameter is the caller's mistake: refused, the model left as it was.
      if (err instanceof InvalidInferenceError) throw err;
      this.failModel(entry, errorText(err));
      throw new ModelLoadError(`failed to load '${name}': ${errorText(err)}`);
    }
  }

  /** Builds the planned versions, in parallel up to the host-wide measured part. */
  private async buildVersions(files: ModelFiles, plan: BuildPlan): Promise<BuildResult> {
    const { toBuild } = plan;
    const built = await Promise.allSettled(
      toBuild.map((v) =>
        loadModelVersion(this.repo, files, v, {
          defaults: this.defaults,
          metrics: this.metrics,
          meter: this.meter,
          onSplit: (split) =>
            this.logger.info(
              { event: 'instance-split', ...split },
              `model '${split.model}' version ${split.version}: ${split.instances} instances × ${split.intraOpThreads} intra-op threads (${split.reason})`,
            ),
          onNice: (nice) => this.warnOfWorkerNice(nice),
        }),
      ),
    );
    const fresh = new Map<string, ModelVersionRuntime>();
    const failed = new Map<string, string>();
    built.forEach((r, i) => {
      const v = String(toBuild[i]);
      if (r.status === 'fulfilled') fresh.set(v, r.value);
      else failed.set(v, errorText(r.reason));
    });
    return { ...plan, fresh, failed };
  }

  /** Once per host: the pool threads' nice value reached the worker threads too. */
  private warnOfWorkerNice(nice: {
    model: string;
    version: string;
    pool: number;
    worker: number;
  }): void {
    if (!workersKeptPoolNice(nice) || this.warnedOfWorkerNice) return;
    this.warnedOfWorkerNice = true;
    this.logger.warn(
      { event: 'worker-nice', ...nice },
      `model '${nice.model}' version ${nice.version}: the session worker threads run at nice ${nice.worker} as well as the pool threads, because this process may not lower a nice value again (no CAP_SYS_NICE); set ORT_POOL_THREAD_NICE=0 to leave every inference thread at the host's priority`,
    );
  }

  private failModel(entry: ModelEntry, reason: string): void {
    entry.reason = reason;
    if (entry.serving.size === 0) entry.state = 'UNAVAILABLE';
  }

  /** Load/unload of one model run one after another; different models proceed in parallel. */
  private serialized(name: string, fn: () => Promise<void>): Promise<void> {
    const prev = this.locks.get(name) ?? Promise.resolve();
    const next = prev.catch(() => undefined).then(fn);
    this.locks.set(
      name,
      next.catch(() => undefined),
    );
    return next;
  }
}
