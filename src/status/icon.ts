/**
 * The extension's icon.
 */
import { LabIcon } from '@jupyterlab/ui-components';

const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">
  <g class="jp-icon3" fill="#616161">
    <path d="M8.6 16.6 4 12l4.6-4.6L7.2 6l-6 6 6 6z"/>
    <path d="M15.4 16.6 20 12l-4.6-4.6L16.8 6l6 6-6 6z"/>
    <path d="M13.5 5h-2L9.6 19h2z" opacity="0.55"/>
  </g>
</svg>`;

export const codeCompleteIcon = new LabIcon({
  name: 'jupyter-codecomplete:icon',
  svgstr: svg
});
