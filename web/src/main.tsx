import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Api } from './api.js';
import { App } from './app.js';
import { RpcClient } from './rpc.js';
import './styles.css';

const api = new Api(RpcClient.fromLocation(window.location, '/rpc'));
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App api={api} />
  </StrictMode>,
);
