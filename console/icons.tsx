/** Inline SVG icons (Debian's Chromium has no emoji font): decorative, so hidden from assistive technology. */
const paths = {
  bell: 'M12 22a2 2 0 0 0 2-2h-4a2 2 0 0 0 2 2zm6-6V11a6 6 0 0 0-5-5.9V4a1 1 0 0 0-2 0v1.1A6 6 0 0 0 6 11v5l-2 2v1h16v-1z',
  moon: 'M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z',
  tasks: 'M4 6h16v2H4zm0 5h16v2H4zm0 5h10v2H4z',
  x: 'M6 6l12 12M18 6L6 18',
} as const;

export function Icon({ name }: { name: keyof typeof paths }) {
  const stroke = name === 'x';
  return (
    <svg class="icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
      <path d={paths[name]} fill={stroke ? 'none' : 'currentColor'} stroke={stroke ? 'currentColor' : 'none'} stroke-width="2" />
    </svg>
  );
}
