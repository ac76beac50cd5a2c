/** The per-view readers of the dashboard (DashboardFeeds). */
export const DASHBOARD_FEEDS = Symbol('DASHBOARD_FEEDS');
/** Directory of the built front-end (index.html, app.js, app.css). */
export const DASHBOARD_UI_DIR = Symbol('DASHBOARD_UI_DIR');
