/**
 * On a narrow screen a wide table scrolls sideways inside itself (style.css), never the page. A region that
 * scrolls must be reachable from the keyboard to be scrolled (WCAG 2.1.1; axe's scrollable-region-focusable):
 * every table of `root` that is wider than its box gets tabindex=0 and a name from the heading before it, and
 * loses them again when it fits. The pages' own markup stays plain tables.
 */
export function keepTablesScrollable(root: HTMLElement): () => void {
  const mark = () => {
    for (const table of root.querySelectorAll<HTMLTableElement>('table')) {
      const scrolls = table.scrollWidth > table.clientWidth + 1;
      if (scrolls && table.dataset.scrolls !== 'yes') {
        table.dataset.scrolls = 'yes';
        table.tabIndex = 0;
        if (!table.hasAttribute('aria-label')) table.setAttribute('aria-label', `${headingBefore(table) ?? 'Table'} (scrolls sideways)`);
      } else if (!scrolls && table.dataset.scrolls === 'yes') {
        delete table.dataset.scrolls;
        table.removeAttribute('tabindex');
        if (table.getAttribute('aria-label')?.endsWith('(scrolls sideways)')) table.removeAttribute('aria-label');
      }
    }
  };
  let queued = false;
  const soon = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      mark();
    });
  };
  const observer = new MutationObserver(soon);
  observer.observe(root, { childList: true, subtree: true, characterData: true });
  addEventListener('resize', soon);
  soon();
  return () => {
    observer.disconnect();
    removeEventListener('resize', soon);
  };
}

/** The text of the nearest heading before the table in document order (its section's title). */
function headingBefore(el: Element): string | undefined {
  const headings = [...document.querySelectorAll('h1, h2, h3')].filter((h) => h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
  return headings.at(-1)?.textContent?.trim() || undefined;
}
