/** Entry point: global styles, then the app. Workers start lazily from the bridge. */
import { mount } from 'svelte';
import App from './app/App.svelte';
import './app/components/theme.css';

const target = document.getElementById('app');
if (!target) throw new Error('missing #app');
export default mount(App, { target });
