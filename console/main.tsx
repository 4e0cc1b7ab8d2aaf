import { render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, setToken, token } from './api.ts';
import { Bell } from './bell.tsx';
import { Guests, JailPage, VmPage } from './guests.tsx';
import { NodePage } from './node.tsx';
import { Icon } from './icons.tsx';
import { OfflineBanner } from './offline-banner.tsx';
import { Overview } from './overview.tsx';
import { Audit, Backups, Certificates, Notifications } from './pages.tsx';
import { isAdmin, loadWhoami, role, route, who } from './state.ts';
import { Storage } from './storage.tsx';
import { TaskPanel } from './tasks.tsx';
import { keepTablesScrollable } from './scrolling-tables.ts';
import './style.css';

const NAV: Array<[string, string, () => boolean]> = [
  ['/', 'Overview', () => true],
  ['/guests', 'Guests', () => true],
  ['/storage', 'Storage', () => true],
  ['/backups', 'Backups', () => true],
  ['/certificates', 'Certificates', () => true],
  ['/notifications', 'Notifications', () => true],
  ['/audit', 'Audit', isAdmin],
];

function Page() {
  const r = route.value;
  const jail = r.match(/^\/jail\/(\d+)$/);
  const vm = r.match(/^\/vm\/(\d+)$/);
  const node = r.match(/^\/node\/([^/]+)$/);
  if (node) return <NodePage id={decodeURIComponent(node[1])} />;
  if (jail) return <JailPage ctid={Number(jail[1])} />;
  if (vm) return <VmPage rid={Number(vm[1])} />;
  switch (r) {
    case '/guests':
      return <Guests />;
    case '/storage':
      return <Storage />;
    case '/backups':
      return <Backups />;
    case '/certificates':
      return <Certificates />;
    case '/notifications':
      return <Notifications />;
    case '/audit':
      return isAdmin() ? <Audit /> : <p>The audit log is for admins.</p>;
    default:
      return <Overview />;
  }
}

/** Light, dark, or the system's choice (prefers-color-scheme), kept in localStorage. */
function ThemeToggle() {
  const [theme, setTheme] = useState(localStorage.getItem('hostmgr.theme') ?? 'system');
  useEffect(() => {
    if (theme === 'system') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
    localStorage.setItem('hostmgr.theme', theme);
  }, [theme]);
  const next = theme === 'system' ? 'dark' : theme === 'dark' ? 'light' : 'system';
  return (
    <button type="button" class="icon-button" onClick={() => setTheme(next)} aria-label={`Theme: ${theme}; switch to ${next}`}>
      <Icon name="moon" />
    </button>
  );
}

function SignIn(props: { error?: string }) {
  const [error, setError] = useState<string | undefined>(props.error);
  return (
    <main class="signin">
      <h1>hostmgr console</h1>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setToken(String(new FormData(e.currentTarget).get('token') ?? '').trim());
          try {
            await loadWhoami();
          } catch (err) {
            setToken(null);
            setError(err instanceof ApiError ? err.message : String(err));
          }
        }}
      >
        <label>
          API token <input name="token" type="password" autocomplete="off" required />
        </label>
        <button type="submit">Sign in</button>
        <p class="muted">The token stays in this tab only (sessionStorage). `npm start` prints one.</p>
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
      </form>
    </main>
  );
}

function App() {
  const [error, setError] = useState<string | undefined>(undefined);
  const [checking, setChecking] = useState(Boolean(token.value));
  // a token already in this tab (a reload): ask who it is once; the sign-in form asks for a new one itself
  useEffect(() => {
    if (token.value && !role.value)
      loadWhoami()
        .catch((err) => setError(err instanceof ApiError ? err.message : String(err)))
        .finally(() => setChecking(false));
  }, []);
  // the page's main element, from when it mounts (after sign-in) until it unmounts
  const stopTables = useRef<(() => void) | null>(null);
  const mainRef = useCallback((el: HTMLElement | null) => {
    stopTables.current?.();
    stopTables.current = el ? keepTablesScrollable(el) : null;
  }, []);
  if (checking && !role.value) return <p class="muted">Signing in…</p>;
  if (!token.value || !role.value) return <SignIn error={error} />;
  return (
    <div class="shell">
      <header>
        <a class="brand" href="#/">
          hostmgr
        </a>
        <nav aria-label="Main">
          {NAV.filter(([, , show]) => show()).map(([path, label]) => (
            <a key={path} href={`#${path}`} aria-current={route.value === path ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <div class="right">
          <span class={`badge role-${role.value}`} data-role={role.value} title={who.value}>
            {role.value}
          </span>
          <Bell />
          <ThemeToggle />
          <button
            type="button"
            class="small"
            onClick={() => {
              setToken(null);
              role.value = null;
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <OfflineBanner />
      <main ref={mainRef}>
        {role.value === 'viewer' ? (
          <p class="viewer-note" data-why="viewer">
            Signed in as a viewer: you can read every page; starting, changing or cancelling anything needs an operator or admin token.
          </p>
        ) : null}
        <Page />
      </main>
      <TaskPanel />
    </div>
  );
}

render(<App />, document.getElementById('app')!);
