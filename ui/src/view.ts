import type { Api } from './api';

/** What a view gets from the shell: the API, and a place to report a failed action. */
export interface ViewContext {
  api: Api;
  notify(message: string, isError?: boolean): void;
}

/** A view re-renders its root from each snapshot of its live stream. */
export interface View {
  render(data: unknown): void;
  /** Called when the view is left (charts, dialogs). */
  dispose?(): void;
}

export type ViewFactory = (root: HTMLElement, ctx: ViewContext) => View;
