import { definePlugin } from '@capture/sdk';
import { discordProvider, discordSendMessage } from './discord.js';
import { hubspotCreateContact, hubspotProvider } from './hubspot.js';
import { ntfy } from './ntfy.js';
import { pushedSend } from './pushed.js';
import { slackProvider, slackSendMessage } from './slack.js';
import { twitterProvider, twitterTweet } from './twitter.js';

export default definePlugin({
  name: '@capture/plugin-notify',
  actions: [slackSendMessage, discordSendMessage, ntfy, pushedSend, hubspotCreateContact, twitterTweet],
  providers: [slackProvider, discordProvider, hubspotProvider, twitterProvider],
});
