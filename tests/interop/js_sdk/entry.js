// The modular API of firebase-js-sdk's own source, on `window.firebase`, for the browser tests.
import * as app from '@firebase/app';
import * as auth from '@firebase/auth';

window.firebase = { ...app, ...auth };
