import { boundedSearchText } from '../knowledge/search-query';
import actsModelFile from './acts-model.json';
import { actProbability, readActModel, type ActModels } from './acts-model';

/**
 * Conversation acts: what a whole customer message is when it is not a question for
 * the help center. Small talk (a greeting, thanks, a goodbye, an "ok") gets a short
 * reply and no search; a request for a person is handed over at once.
 *
 * The wordings are data, per language (WORDINGS below); the matcher is one pass over
 * the message's words, so it costs what the message's length costs (it runs on every
 * message, hostile ones included). Matching ignores case, accents, punctuation, emoji,
 * repeated letters ("thaaanks"), "ae/oe/ue" for "ä/ö/ü", one-letter typos of longer
 * words and swapped letters in shorter small talk ("dnak").
 *
 * Precision comes first: a message that also asks or tells anything else is not small
 * talk, and a mention of people ("can a person pick up my parcel?", "is a real person
 * reading this?", "am I talking to a human?") is not a request for one. Only these are:
 * a wording of being put in touch ("talk to", "connect me with"), of wanting one ("I want
 * a human"), of asking whether one is there ("is there a human?", "ist ein Mitarbeiter
 * verfügbar?", "客服在吗"), of being called or written to with the customer as the one
 * reached ("can someone call me back?", "kann mich jemand anrufen?", "email me"), of
 * turning the bot away ("stop the bot", "I don't want to talk to a bot"), or a person
 * named alone or with "please" ("agent", "Mitarbeiter bitte"). A person who is followed
 * by anything else in the clause ("is there a human size chart?", "人工客服几点上班？")
 * is talked about, not asked for, and so is one the customer asks how or when to reach
 * ("how do I call customer service?", "wann ist die Hotline erreichbar?").
 *
 * eval/acts/<language>.jsonl measures it (tests/unit/conversation-acts-set.test.ts, and
 * through the service `npm run eval:answers -- --acts`).
 */

export type SmallTalkAct = 'greeting' | 'thanks' | 'goodbye' | 'acknowledgement';
export type ConversationAct = SmallTalkAct | 'ask_for_person';

export interface RecognizedAct {
  act: ConversationAct;
  /** BCP-47 primary subtag the wording belongs to, when the wording tells (e.g. 'de' for "danke"); null for language-neutral ("ok", "👍"). */
  language: string | null;
}

/** How a language words small talk and asking for a person. Every entry is matched as normalized words (see `wordsOf`). */
interface LanguageWordings {
  greeting?: string[];
  thanks?: string[];
  goodbye?: string[];
  acknowledgement?: string[];
  /** Praise that closes a compliment, read as an acknowledgement ("Bravo!", "Großes Lob!", "好评"): the message it ends may praise in words no list holds. */
  praise?: string[];
  /** Turning praise to a matter ("but", "aber", "leider", "不过"): the model's small talk is not believed past one. */
  contrast?: string[];
  /** Words that go with small talk but are none on their own ("so much", "dir", "everyone"). */
  smallTalkFillers?: string[];
  /** Who can answer in person. A trailing `*` matches any ending ("mitarbeiter*": Mitarbeiterin, Mitarbeitern). */
  person?: string[];
  /** "Someone": a person only when the message also asks to be put in touch ("talk to someone"). */
  someone?: string[];
  /** Being put in touch, on either side of the person ("talk to", "connect me", "sprechen", "と話したい"). */
  contact?: string[];
  /** Being put in touch, said after the person ("a human I can talk to", "someone to speak with"). */
  contactFollowing?: string[];
  /** Wanting, right before a person who ends the clause ("I want a human", "ich will einen Menschen"; not "I would like a person to sign for it"). */
  want?: string[];
  /** Asking for, right before a person who ends the clause ("can I get a human?", not "can I have a person collect it?"). */
  askFor?: string[];
  /** True when a wording of contact may also follow its person ("mit einem Menschen sprechen", "オペレーターと話したい"); else it must come first ("talk to a human"). */
  contactAfter?: boolean;
  /**
   * True when the person of a wording of contact follows an article, a preposition or the
   * wording itself ("talk to a human", "einen Mitarbeiter sprechen"; not "Sprechen Ihre
   * Mitarbeiter Englisch?", "Wie viele Menschen sprechen Deutsch?").
   */
  articles?: boolean;
  /** What may close a request for a person, and with a person alone makes one: "please", "now", "not a bot" ("human please", "Mitarbeiter bitte"). */
  please?: string[];
  /** Words that may stand around a person named alone ("a", "real", "einen", "echten"). */
  personFillers?: string[];
  /** Words a person-word starts that are no person ("human resources", "人工智能"). */
  notPerson?: string[];
  /** Words that, right before a wording of contact, turn it around ("not", "nicht", "не"). */
  negation?: string[];
  /** Asking whether there is one, before a person who ends the clause ("is there a human?", "gibt es einen Mitarbeiter?", "有没有人工客服"). */
  exists?: string[];
  /** Being there, right after a person who starts no other matter ("is an agent available?", "yetkili biri var mı?", "客服在吗"). */
  available?: string[];
  /** Being called or contacted back, on either side of the person, ending the clause ("can someone call me back?", "kann mich ein Mitarbeiter zurückrufen?"); alone with "please" too ("Rückruf bitte"). */
  callback?: string[];
  /** The customer as the object of being reached ("me", "mich", "mir"): with a wording of `reachOut` beside it, a callback ("can someone email me?", "kann mich jemand anrufen?"). */
  me?: string[];
  /**
   * Reaching the customer, by phone or in writing, said without the customer ("email",
   * "anrufen", "mandar un correo"): a callback only with a wording of `me` before it in
   * its clause, or right after it; so "can I call customer service?" stays a question.
   */
  reachOut?: string[];
  /** How a callback is to come, closing it ("by email", "per Mail", "par téléphone"). */
  channel?: string[];
  /**
   * What a callback, or a human asked for, is about or when it is to come, after it; whatever follows is the matter ("call me about
   * my order", "ruft mich an wegen der Lieferung", "a human to help me with a return", "envoyez-moi un SMS quand vous aurez regardé").
   */
  topic?: string[];
  /**
   * Opening a condition ("if", "wenn", "si", "如果"): a negation in it does not turn being reached
   * around ("if nobody calls me today, I cancel" asks to be called). "Only if" after being reached
   * makes it a request for later ("contact me by SMS only if anything changes").
   */
  condition?: string[];
  /**
   * Of a team, right after someone ("from", "vom", "del", "z działu"): someone of a team the lists
   * do not name, by the word or two after it, is a person of the shop ("anyone from billing",
   * "qualcuno del magazzino", "kogoś z działu faktur").
   */
  fromTeam?: string[];
  /**
   * Having talked to someone, told of ("I spoke to", "j'ai parlé à", "ho parlato con"): the person
   * right after it is one the customer met ("J'ai parlé à un conseiller hier"), not one asked for.
   */
  met?: string[];
  /** Nobody ("no one", "niemand", "nadie", "没人"): in a condition, someone to reach the customer ("Si hoy nadie me llama, cancelo el pedido"). */
  nobody?: string[];
  /** "Or", offering the bot as the other choice after the person asked for ("is there a real person or just a bot?", "hay alguien de verdad o solo es un bot?"). */
  alternative?: string[];
  /**
   * Asking how, when or where, before the person in its clause: about reaching one, not
   * asking for one ("how do I call customer service?", "wann ist die Hotline erreichbar?"),
   * unless a wording of contact says the customer wants to talk to one ("how can I talk to a
   * human?", "wo kann ich mit einem Mitarbeiter chatten?") or the one asked for is named a human
   * as against the bot ("how do I get hold of an actual human here?"): a person answers that best.
   */
  asksHow?: string[];
  /** Asking whether one is talking to a person already ("我是在跟真人聊天吗"): a question, contact or not. */
  asksWhether?: string[];
  /**
   * Asking what, which, who, why or how many: a question for knowledge ("What is consultant
   * pharmacy mainly concerned with?"). Read only by the second reader of requests, in the
   * language of the wording it stands beside (German "was" is English "was"). No word that a
   * common word folds to: German "wen" (whom) is "wenn" (when), folded.
   */
  asksWhat?: string[];
  /** The bot itself: turned away with a "stop" or a negated wording of contact ("stop the bot", "I don't want to talk to a bot"), it asks for a person. */
  machine?: string[];
  /** Turning the bot away, before it (or, where the verb comes last, right after it: "bot değil"). */
  stop?: string[];
}

/** The wordings of language-neutral small talk: they name no language. */
const NEUTRAL: LanguageWordings = {
  acknowledgement: ['ok', 'okay', 'okey', 'oki', 'okk', 'okok', 'k', 'kk', 'super', 'top', 'okidoki', '👍', '👌', '🆗', '✅', '🙂👍'],
  thanks: ['🙏', '🙇', '🌹'],
  greeting: ['👋'],
  smallTalkFillers: ['😊', '🙂', '😅', '😆', '🤣', '😂', '😘', '😀', '😃', '😄', '😁', '☺', '❤', '♥', '😉', '🤗', '🥰', '😍', '🙌', 'xd', 'xx', 'xo', 'xoxo', '👏', '✨', '🐶', '🐱', '💕', '💖', '🥳'],
  personFillers: [],
    machine: ['bot', 'bots', 'chatbot', 'chat bot', 'robot'],
    please: ['🙏', '〜'],
    notPerson: ['dhl', 'ups', 'fedex', 'dpd', 'gls', 'hermes', 'usps', 'postnl', 'inpost', 'colissimo', 'correos', 'bpost', 'royal mail', 'evri', 'chronopost', 'brt', 'sda', 'ctt', 'yamato', 'sagawa', '顺丰', '中通', '圆通', '韵达'],
};

/** Wordings per language (ISO 639-1 code). A wording shared by languages is listed once, under the one it is most often in. */
const WORDINGS: Record<string, LanguageWordings> = {
  en: {
    condition: ['if', 'only if', 'only when'],
    nobody: ['no one', 'nobody', 'noone', 'no one from your team', 'nobody from your team'],
    greeting: [
      'hi', 'hello', 'hey', 'heya', 'hiya', 'howdy', 'yo', 'hi there', 'hello there', 'hey there', 'good morning', 'good afternoon', 'good evening',
      'morning', 'greetings', 'hellp', 'helo', 'hii', 'hai', 'anyone there', 'is anyone there', 'anybody there', 'is anybody there', 'anyone here',
      'gm', 'gud evening', 'hows it going',
    ],
    thanks: ['thanks', 'thank you', 'thank u', 'thankyou', 'thx', 'thnx', 'thanx', 'tnx', 'ty', 'tysm', 'tyvm', 'thanks a lot', 'many thanks', 'cheers', 'much appreciated', 'appreciate it', 'thanks a bunch', 'thanks a million', 'ta', 'thank', 'thks', 'thnks', 'tks'],
    goodbye: ['bye', 'goodbye', 'good bye', 'bye bye', 'byebye', 'see you', 'see ya', 'see you later', 'cya', 'have a nice day', 'have a good day', 'have a great day', 'have a nice evening', 'have a good one', 'take care', 'good night', 'farewell', 'no thanks', 'no thank you', 'nope thanks', 'no thx', 'thats all', 'that is all', 'thats all thanks', 'nothing else', 'nothing else thanks', 'all good thanks', 'thats everything', 'that is everything', 'thats it', 'that is it', 'no thats all', 'thats all for now', 'all set', 'im all set', 'im good', 'gotta go', 'got to go', 'gtg', 'g2g', 'have to go', 'i have to go', 'i gotta go', 'i gtg', 'bye now', 'ta-ra', 'tara', 'ta ra'],
    acknowledgement: ['alright', 'all right', 'got it', 'gotcha', 'perfect', 'great', 'cool', 'nice', 'fine', 'good', 'sounds good', 'understood', 'noted', 'i see', 'sure', 'awesome', 'excellent', 'wonderful', 'fantastic', 'brilliant', 'lovely', 'ok cool', 'makes sense', 'that helps', 'that helped', 'very helpful', 'helpful', 'great help', 'no problem', 'np', 'all good', 'fair enough', 'will do', 'okay then', 'ok then', 'amazing', 'thats great', 'thats perfect', 'that is great', 'that is perfect', 'great stuff', 'roger', 'cool beans', 'a great help', 'a big help', 'a lifesaver', 'really helpful', 'so helpful', 'super helpful', 'okie dokie', 'okey dokey', 'okie', 'nice one', 'good one', 'great service', 'awesome service', 'excellent service', 'amazing service', 'top service', 'super service', 'good service', 'nice service', 'brilliant service', 'the best', 'you guys are the best', 'you are the best', 'youre the best', 'love your shop', 'solved', 'sorted', 'all sorted', 'problem solved', 'it works now', 'works now', 'resolved', 'all fixed', 'fixed it', 'its working now', 'love ur shop', 'love your store', 'love ur store', 'highly recommend', 'would recommend', 'recommended', 'you rock', 'you guys rock', 'great shop', 'great store', 'great website', 'alrighty', 'alrighty then'],
    praise: ['well done', 'kudos', 'great job', 'bravo', 'hats off', 'five stars', '5 stars', 'love it', '10/10', 'keep it up', 'keep up the good work', 'love this shop', 'love your shop', 'love this store', 'love your store', 'love you guys', 'you guys are the best', 'best shop ever', 'incredible', 'is incredible', 'made my day', 'you made my day', 'best store ever', 'the best shop', 'the best store', 'best shop', 'best store', 'you guys rock', 'you rock', 'love you', 'love ur shop', 'love this place', 'obsessed'],
    smallTalkFillers: ['so much', 'very much', 'a lot', 'again', 'you', 'u', 'there', 'all', 'everyone', 'guys', 'team', 'folks', 'for your help', 'for the help', 'for helping', 'for that', 'for the info', 'for the information', 'for your time', 'for the answer', 'for the quick answer', 'for the reply', 'for the quick reply', 'for your reply', 'for the fast reply', 'for the response', 'for your response', 'for the quick response', 'for everything', 'a ton', 'a bunch', 'heaps', 'loads', 'oh', 'ah', 'haha', 'hehe', 'lol', 'and', 'so', 'really', 'just', 'well', 'very', 'indeed', 'mate', 'buddy', 'dear', 'sir', 'madam', 'too', 'also', 'both', 'kindly', 'much', 'wow', 'yay', 'oh ok', 'in advance', 'for now', 'btw', 'once again', 'youve been', 'you have been', 'you were', 'you are', 'youre', 'that was', 'this was', 'no', 'nope', 'thats', 'that is', 'you guys are', 'honestly', 'as always', 'as usual', 'as ever', 'love the shoes', 'hope ur having a good day', 'hope youre having a good day', 'hope you are having a good day', 'always fast delivery', 'fast delivery', 'always quick delivery', 'love', 'love it', 'i love', 'loving', 'the shop', 'your shop', 'this shop', 'shop', 'store', 'the store', 'your store', 'website', 'the website', 'your website', 'the new website', 'new website', 'the site', 'your site', 'collection', 'the new collection', 'new collection', 'your products', 'the products', 'products', 'just wanted to say', 'just wanted to say that', 'arrived super fast', 'arrived so fast', 'arrived fast', 'arrived quickly', 'for the quick delivery', 'for the fast delivery', 'for the speedy delivery'],
    person: ['human', 'human being', 'real human', 'real person', 'person', 'live person', 'actual person', 'agent', 'live agent', 'human agent', 'support agent', 'real agent', 'representative', 'rep', 'customer service', 'customer support', 'customer care', 'support team', 'operator', 'manager', 'supervisor', 'staff member', 'employee', 'service agent', 'live chat', 'live support', 'advisor', 'adviser', 'consultant', 'someone real', 'somebody real', 'a real one', 'live human', 'a human', 'real one', 'customer service rep', 'customer service agent', 'customer service representative', 'support person', 'actual human', 'member of staff', 'member of your staff', 'member of your team', 'team member', 'anyone human', 'anybody human', 'someone human', 'somebody human', 'returns department', 'billing department', 'accounts department', 'complaints department', 'returns team', 'billing team', 'owner', 'shop owner', 'store owner', 'someone on the phone', 'somebody on the phone', 'accounts team', 'accounting', 'finance team', 'billing dept', 'returns dept', 'complaints team', 'management', 'customer relations', 'someone higher up', 'someone in charge', 'superior', 'someone from billing', 'someone from returns', 'someone from accounts', 'someone in billing', 'someone in returns', 'anybody real', 'anyone real', 'humn', 'hooman', 'huamn', 'humna', 'persn', 'someone from the team', 'somebody from the team', 'sales team', 'someone from sales', 'somebody from sales', 'someone in sales', 'sales department', 'sales dept', 'a lady or gentleman', 'account manager', 'an account manager'],
    someone: ['someone', 'somebody', 'anyone', 'anybody', 'someone from your team', 'someone from support', 'a colleague', 'your colleague', 'support', 'your team', 'your support', 'your support team', 'your staff', 'staff', 'humans', 'real humans', 'people', 'real people', 'actual people', 'actual humans', 'sum1', 'some1', 'any1', 'someone above you', 'someone higher', 'one of your colleagues', 'one of your team', 'one of your staff', 'one of your people', 'sb', 'smb', 'sb from support'],
    contact: ['talk', 'speak', 'chat with', 'connect me', 'transfer me', 'put me through', 'get me', 'give me', 'escalate', 'escalate this', 'reach', 'forward me', 'pass me', 'hand me over', 'switch me', 'i want to talk', 'let me talk', 'let me speak', 'talk to', 'speak to', 'speak with', 'talk with', 'need to talk', 'need to speak', 'put me in touch', 'get in touch with', 'chat to', 'hand me to', 'hand this over', 'pass this on', 'switch to', 'be connected', 'be transferred', 'transfer to', 'connect to', 'connect with', 'put through to', 'put me on to', 'put me onto', 'put me thru', 'put me thru to', 'transfer me to', 'pass this upwards', 'pass this up', 'escalate it', 'take this over', 'take over this conversation', 'take over this chat', 'take over the chat', 'take it from here', 'connecting me', 'connecting me with', 'connecting me to', 'transferring me', 'transferring me to', 'passing me to', 'discuss', 'discuss this with', 'discuss it with', 'go over this with', 'sort this out with', 'sort it out with', 'get through to', 'get thru to', 'get through to a', 'be put through to', 'chat w', 'get hold of', 'get a hold of'],
    contactFollowing: ['i can talk', 'i can speak', 'i could talk', 'i could speak', 'to talk to', 'to speak to', 'to speak with', 'to talk with', 'i can chat with', 'who i can talk to', 'that i can talk to', 'who i can speak to', 'i can talk with', 'to chat with', 'to sort this out', 'to actually sort this out', 'to sort it out', 'i could talk to', 'that i could talk to', 'who i could talk to', 'i could speak to', 'i could chat with', 'that i could speak to'],
    want: ['i want', 'i need', 'i would like', 'id like', 'i wanna', 'i demand', 'i request', 'i prefer', 'give me', 'get me', 'id prefer', 'i would prefer', 'id rather have', 'id want', 'i would want', 'id need', 'need', 'want', 'wanna', 'please get', 'get'],
    askFor: ['can i have', 'can i get', 'could i get', 'could i have', 'may i have', 'can you get', 'can you give me', 'can you', 'could you', 'would you', 'can u', 'is it possible to get', 'any chance of'],
    please: ['please', 'pls', 'plz', 'plss', 'pleaseee', 'asap', 'now', 'right now', 'urgently', 'urgent', 'not a bot', 'not a robot', 'not a machine', 'not an ai', 'instead', 'to help me', 'who can help me', 'immediately', 'i mean', 'i meant', 'or just bots', 'or only bots', 'or just a bot', 'or is it just a bot', 'or just robots', 'who can look at this', 'who can look into this', 'look at this', 'look into this', 'look into it', 'look at it', 'if possible', 'if you can', 'if you could', 'if poss', 'at the moment', 'atm', 'currently', 'as soon as possible', 'as soon as you can', 'soon'],
    personFillers: ['a', 'an', 'the', 'to', 'real', 'actual', 'live', 'your', 'some', 'just', 'with', 'me', 'there', 'here', 'on here', 'in here', 'on the line', 'on the phone', 'in the chat', 'in chat', 'on chat', 'but', 'rather', 'right now', 'any', 'on this', 'involved', 'above you', 'lol', 'tbh', 'honestly', 'seriously', 'of the shop', 'of the store', 'from the shop', 'from the store', 'rather than here', 'instead of here', 'rather than the bot', 'behind this', 'behind the screen', 'actually', 'real quick', 'quick', 'quickly', 'on the chat'],
    notPerson: ['human resources', 'human error', 'human rights', 'human body', 'human nature', 'human guinea pig', 'in person', 'customer service hours', 'personal', 'delivery person', 'delivery agent', 'travel agent', 'user agent', 'estate agent', 'real estate agent', 'insurance agent', 'person to sign', 'someone to sign', 'person to collect', 'someone to collect', 'person to pick', 'someone to pick', 'person to receive', 'someone to receive', 'person to accept', 'someone to accept'],
    articles: true,
    negation: ['not', 'dont', 'do not', 'never', 'no need', 'doesnt', 'didnt', 'wont', 'cant', 'without', 'rather not', 'not talk'],
    exists: ['is there', 'are there', 'do you have', 'have you got', 'got'],
    available: ['available', 'online', 'around', 'free to chat', 'available to chat', 'available to talk', 'on duty'],
    callback: ['call me back', 'call me', 'ring me', 'phone me', 'give me a call', 'callback', 'call back', 'get back to me', 'reach out to me', 'contact me', 'a callback', 'give me a ring', 'give me a buzz', 'drop me an email', 'drop me a line', 'text me', 'message me', 'whatsapp me', 'hit me up', 'give us a bell', 'give me a bell', 'text me back', 'message me back', 'escalate', 'escalate this', 'escalate it', 'escalate my case', 'escalate my complaint', 'want this escalated', 'have this escalated', 'get this escalated', 'be put in touch', 'to be put in touch', 'txt me', 'call her', 'call him', 'ring her', 'ring him', 'phone her', 'phone him', 'telephone me', 'telephone me back', 'ring me back', 'get in touch by email', 'get in touch by phone', 'get in touch', 'be in touch'],
    machine: ['this bot', 'machine', 'automated', 'virtual assistant', 'robots'],
    alternative: ['or'],
    stop: ['stop', 'enough', 'no more', 'quit', 'sick of', 'tired of', 'fed up with', 'done with', 'enough of', 'enough with', "i'm not talking to", 'im not talking to', 'not talking to', "won't talk to", 'wont talk to', 'not chatting with'],
    me: ['me', 'to me'],
    reachOut: ['email', 'e-mail', 'mail', 'text', 'message', 'write', 'write back', 'phone', 'ring', 'call', 'contact', 'reply', 'send', 'sms', 'whatsapp'],
    channel: ['by email', 'by e-mail', 'via email', 'by phone', 'over the phone', 'an email', 'an e-mail', 'a mail', 'a text', 'a message', 'at', 'on', 'my number is', 'my number', 'tomorrow', 'today', 'later', 'later today', 'this afternoon', 'this evening', 'back', 'tmrw', 'tmr', 'tomorrow morning', 'tmrw morning', 'to discuss', 'to discuss this', 'to discuss the options', 'to discuss it', 'when you can', 'whenever you can', 'asap'],
    topic: ['about', 'regarding', 're', 'concerning', 'with regard to', 'in regards to', 'regards', 'to arrange', 'to discuss', 'to sort out', 'to talk about', 'to explain', 'with', 'for', 'when', 'once', 'to see if', 'to see', 'to check', 'to confirm', 'to go through', 'to go over'],
    asksHow: ['how', 'when', 'what time', 'where', 'until when', 'i want to know', 'i would like to know', 'id like to know', 'wondering'],
    asksWhat: ['what', 'which', 'who', 'whom', 'whose', 'why', 'how many', 'how much'],
    contrast: ['but', 'though', 'although', 'however', 'unfortunately', 'except'],
    asksWhether: ['am i talking to', 'am i talking with', 'am i chatting with', 'am i chatting to', 'am i speaking to', 'am i speaking with', 'am i texting with'],
    fromTeam: ['from', 'from the', 'from your', 'in', 'in the', 'in your', 'on the', 'on your'],
    met: ['i spoke to', 'i spoke with', 'i talked to', 'i talked with', 'i already spoke to', 'i already talked to', 'i have spoken to', 'ive spoken to', 'i chatted with', 'spoke to', 'talked to', 'spoke with', 'talked with'],
  },
  de: {
    condition: ['wenn', 'falls', 'nur wenn', 'nur falls'],
    nobody: ['niemand', 'keiner'],
    greeting: ['hallo', 'halo', 'hallöchen', 'hey', 'guten tag', 'guten morgen', 'guten abend', 'moin', 'moin moin', 'servus', 'grüß gott', 'grüss gott', 'grüß dich', 'grüezi', 'tag', 'n abend', 'hallihallo', 'huhu', 'hi zusammen', 'hallo zusammen', 'hallo ihr lieben', 'ist da jemand', 'jemand da', 'mahlzeit'],
    thanks: ['danke', 'danke schön', 'dankeschön', 'danke sehr', 'vielen dank', 'vielen lieben dank', 'lieben dank', 'herzlichen dank', 'besten dank', 'tausend dank', 'danke vielmals', 'merci vielmals', 'dankesehr', 'dankee', 'danköö', 'dange', 'danke sagen', 'wollte nur mal danke sagen', 'wollte danke sagen'],
    goodbye: ['tschüss', 'tschüs', 'tschau', 'tschüssi', 'auf wiedersehen', 'wiedersehen', 'bis dann', 'bis bald', 'bis später', 'schönen tag noch', 'schönen tag', 'schönen abend', 'einen schönen tag', 'ade', 'adieu', 'machs gut', 'mach es gut', 'servus', 'gute nacht', 'schönes wochenende', 'nein danke', 'das wars', 'das war es', 'das war alles', 'das ist alles', 'das wäre alles', 'das wäre es', 'sonst nichts', 'nichts mehr', 'das wars schon', 'das war schon alles', 'nein das wars', 'nee danke', 'ne danke', 'schönen abend noch', 'tschö', 'bis denne', 'bis zum nächsten mal', 'tschüss und bis zum nächsten mal', 'liebe grüße', 'viele grüße', 'herzliche grüße', 'beste grüße', 'schöne grüße', 'mit freundlichen grüßen'],
    acknowledgement: ['das hilft', 'das hilft mir', 'das hat geholfen', 'hat geholfen', 'alles klar', 'passt', 'passt schon', 'verstanden', 'prima', 'toll', 'gut', 'sehr gut', 'alles gut', 'in ordnung', 'geht klar', 'klar', 'perfekt', 'super sache', 'wunderbar', 'ah ok', 'ach so', 'achso', 'verstehe', 'habe verstanden', 'hab verstanden', 'gut zu wissen', 'jawohl', 'mega', 'okay dann', 'ok dann', 'das hat mir geholfen', 'hat mir geholfen', 'das hat mir sehr geholfen', 'hat mir sehr geholfen', 'sehr hilfreich', 'hilfreich', 'danke für die hilfe', 'jo', 'joa', 'jup', 'läuft', 'weiß ich bescheid', 'weiss ich bescheid', 'ich weiß bescheid', 'ich weiss bescheid', 'bescheid', 'top service', 'super service', 'toller service', 'klasse service', 'guter service', 'spitzen service', 'spitzenservice', 'großartiger service', 'hat super geklappt', 'das ging ja fix', 'eine große hilfe', 'eine grosse hilfe', 'gelöst', 'gelost', 'hat geklappt', 'klappt', 'funktioniert wieder', 'funktioniert jetzt', 'erledigt', 'hat sich erledigt', 'top shop', 'toller shop', 'super shop', 'empfehlenswert', 'klare empfehlung', 'kann ich nur empfehlen', 'hat alles geklappt', 'alles geklappt'],
    praise: ['großes lob', 'dickes lob', 'ein großes lob', 'bin begeistert', 'begeistert', 'top', 'daumen hoch', 'weiter so', 'hut ab', 'klasse', 'spitze', 'einfach top', 'fünf sterne', '5 sterne', 'passt wie angegossen', 'ist begeistert', 'der beste shop', 'der beste laden', 'bester shop', 'bester laden', 'ihr seid die besten', 'ihr seid spitze', 'ihr seid klasse', 'ich liebe euren shop', 'ich liebe euch', 'liebe euren laden', 'mega', 'der hammer', 'ihr seid der hammer'],
    smallTalkFillers: ['dir', 'dich', 'ihnen', 'euch', 'sehr', 'vielmals', 'nochmal', 'nochmals', 'auch', 'und', 'für die hilfe', 'für ihre hilfe', 'für deine hilfe', 'für die info', 'für die infos', 'für die antwort', 'für die schnelle antwort', 'zusammen', 'ihr', 'leute', 'team', 'liebes team', 'noch', 'schon', 'dann', 'ja', 'erstmal', 'so', 'also', 'ach', 'oh', 'super lieb', 'lieb', 'schön', 'mal', 'im voraus', 'ihr lieben', 'für die schnelle hilfe', 'für ihre antwort', 'für deine antwort', 'mir', 'echt', 'wirklich', 'wochenende', 'nein', 'nee', 'ne', 'ebenso', 'gleichfalls', 'dir auch', 'ihnen auch', 'euch auch', 'sie waren', 'ihr wart', 'du warst', 'shop', 'onlineshop', 'laden', 'webseite', 'website', 'immer wieder', 'gern', 'gerne', 'immer wieder gern', 'bestelle immer wieder gern', 'produkte', 'eure produkte', 'wollte nur mal sagen', 'wollte nur sagen', 'das hat mich sehr gefreut', 'hat mich sehr gefreut', 'hat mich gefreut'],
    person: ['mitarbeiter', 'mitarbeiterin', 'mitarbeitern', 'echten menschen', 'einen menschen', 'einem menschen', 'echter mensch', 'echte person', 'echten person', 'person', 'kundenservice', 'kundendienst', 'kundenbetreuer*', 'berater*', 'sachbearbeiter*', 'servicemitarbeiter', 'servicemitarbeiterin', 'support mitarbeiter', 'ansprechpartner*', 'operator', 'agent', 'agenten', 'agentin', 'menschlichen mitarbeiter', 'jemand echtes', 'jemanden echtes', 'kollege*', 'kollegin*', 'ein mensch', 'ein echter mensch', 'einen echten menschen', 'echte menschen', 'menschlicher support', 'menschlichen support', 'menschliche hilfe', 'menschlichen ansprechpartner', 'persönlichen ansprechpartner', 'kundenberater*', 'kundenbetreuung', 'support team', 'supportteam', 'service team', 'serviceteam', 'telefonsupport', 'nen menschen', 'nem menschen', 'n menschen', 'nen echten menschen', 'nem echten menschen', 'nen mitarbeiter', 'nem mitarbeiter', 'jemand vom support', 'jemanden vom support', 'jemand vom kundenservice', 'jemanden vom kundenservice', 'jemanden von euch', 'vorgesetzte*', 'chef', 'chefin', 'teamleiter*', 'filialleiter*', 'abteilung', 'retourenabteilung', 'rücksendeabteilung', 'reklamationsabteilung', 'rechnungsabteilung', 'versandabteilung', 'besitzer', 'besitzerin', 'verantwortliche*', 'jemanden am telefon', 'jemand am telefon', 'geschäftsleitung', 'geschaftsleitung', 'buchhaltung', 'rückgabeabteilung', 'vorgesetzt*', 'abteilungsleiter*', 'inhaber', 'inhaberin', 'ladeninhaber*', 'geschäftsführer*', 'geschaftsfuhrer*', 'geschäftsführung', 'geschaftsfuhrung', 'menschlicher kontakt', 'menschlichen kontakt', 'persönlicher kontakt', 'persönlichen kontakt', 'retouren leute', 'retouren-leute', 'echte leute', 'echten leuten', 'jemanden aus fleisch und blut', 'jemand aus fleisch und blut', 'mensch aus fleisch und blut', 'menschen aus fleisch und blut', 'jemanden aus der werkstatt', 'jemand aus der werkstatt', 'jemandem aus der werkstatt', 'jemand vom verkauf', 'jemanden vom verkauf', 'jemandem vom verkauf', 'wem vom verkauf', 'verkaufsabteilung', 'vertrieb', 'vertriebsabteilung', 'jemand vom vertrieb', 'jemanden vom vertrieb', 'jemand vom team', 'jemanden vom team', 'jemandem vom team', 'persönliche beratung', 'persönlichen beratung', 'telefonische beratung', 'jemandem der sich auskennt', 'jemand der sich auskennt', 'jemanden der sich auskennt'],
    // "Mensch" alone is also an exclamation ("Mensch, wo bleibt mein Paket?").
    someone: ['jemand', 'jemandem', 'jemanden', 'mensch', 'menschen', 'support', 'den support', 'dem support', 'hotline', 'der hotline', 'jmd', 'jmdn', 'jmdm', 'jemand von euch', 'jemand von ihnen', 'wer echtes', 'irgendjemand', 'irgendwer', 'eine freundliche dame', 'eine dame', 'ein freundlicher herr', 'wem von euch', 'wem von ihnen', 'öpper', 'öpper vo eu', 'öpper vo öich'],
    contact: ['sprechen', 'reden', 'schreiben', 'chatten', 'verbinden', 'verbinde', 'verbindet', 'weiterleiten', 'leite mich', 'leiten sie mich', 'durchstellen', 'stellen sie mich', 'sprechen bitte', 'sprechen können', 'telefonieren', 'geben sie mir', 'gib mir', 'hätte gern', 'hätte gerne', 'holen sie', 'verbunden', 'verbunden werden', 'durchgestellt', 'weitergeleitet', 'leitet mich', 'leite mich weiter', 'holt mir', 'hol mir', 'holen sie mir', 'eskalation an', 'weiterleiten an', 'weitergeleitet an', 'das gespräch übernehmen', 'den fall übernehmen', 'weitergeben', 'mich weitergeben', 'darum kümmern', 'drum kümmern', 'sich darum kümmern', 'persönlich kümmern', 'sich das anschaut', 'sich das ansieht', 'besprechen', 'gebt mir', 'bitte verbinden', 'verbinden sie mich', 'verbindet mich', 'klären', 'besprochen', 'geklärt', 'durchgehen', 'durchsprechen', 'komme ich an', 'komm ich an', 'komme ich hier an', 'komm ich hier an', 'quatschen', 'anfordern', 'schnacken', 'snacken'],
    want: ['ich will', 'ich möchte', 'ich moechte', 'ich brauche', 'ich hätte gern', 'ich hätte gerne', 'ich wünsche', 'will', 'möchte', 'brauche', 'ich hätt gern', 'ich bräuchte', 'bräuchte', 'hätte gern', 'hätte gerne', 'wünsche', 'bräucht', 'ich bräucht', 'brauch', 'ich brauch'],
    askFor: ['kann ich', 'könnte ich', 'darf ich', 'kann ich bitte', 'können sie', 'könnt ihr', 'kannst du', 'könnten sie', 'wäre es möglich', 'ist es möglich', 'wäre es möglich dass', 'ginge es', 'kann', 'könnte', 'könnten', 'kann sich'],
    contactAfter: true,
    articles: true,
    please: ['bitte', 'bitteschön', 'sofort', 'jetzt', 'dringend', 'asap', 'mein ich', 'meine ich', 'oder nur bots', 'oder nur noch bots', 'oder nur diesen bot', 'oder nur einen bot', 'oder nur den bot', 'der mir helfen kann', 'der mir persönlich helfen kann', 'die mir helfen kann', 'der mir weiterhelfen kann', 'der mir wirklich helfen kann', 'wenn möglich', 'falls möglich', 'wenn es geht', 'wenns geht', 'gerade', 'im moment', 'momentan', 'grad', 'so schnell wie möglich', 'so schnell wie moeglich', 'schnellstmöglich', 'baldmöglichst', 'zeitnah', 'bald'],
    personFillers: ['ein', 'einen', 'einem', 'einer', 'eine', 'echten', 'echte', 'echter', 'mit', 'den', 'dem', 'der', 'die', 'zu', 'zum', 'ihren', 'einem echten', 'richtigen', 'richtige', 'menschlichen', 'im chat', 'hier', 'da', 'bei euch', 'bei ihnen', 'nem', 'nen', 'ne', 'sondern', 'lieber', 'am telefon', 'an der strippe', 'jetzt', 'gerade', 'um', 'irgendein', 'irgendeinen', 'ihrem', 'ihrer', 'eurem', 'eurer', 'euren', 'euer', 'deinem', 'deinen', 'also', 'ich meine', 'auch', 'überhaupt', 'von euch', 'von ihnen', 'vom', 'mal', 'bitte mal', 'einfach', 'uberhaupt', 'noch', 'vom shop', 'vom laden', 'des shops', 'des ladens'],
    notPerson: ['person die', 'mitarbeiter die', 'mitarbeiter haben', 'mitarbeiter habt', 'menschen die', 'menschheit', 'menschlich', 'personal', 'personen', 'mitarbeiterzahl', 'person abholen'],
    negation: ['nicht', 'kein', 'keinen', 'keine', 'keinem', 'nie', 'niemals', 'ohne'],
    exists: ['gibt es', 'gibts', 'gibt s', 'habt ihr', 'haben sie', 'ist da', 'ist hier', 'sitzt da', 'gibt es bei euch', 'gibts bei euch', 'is da'],
    available: ['verfügbar', 'verfuegbar', 'erreichbar', 'online', 'zu sprechen', 'da'],
    callback: ['zurückrufen', 'zurueckrufen', 'rückruf', 'rueckruf', 'mich anrufen', 'ruft mich an', 'rufen sie mich an', 'ruf mich an', 'mich zurückrufen', 'sich bei mir melden', 'meldet euch bei mir', 'melden sie sich bei mir', 'kontaktiert mich', 'kontaktieren sie mich', 'um rückruf', 'ruf mich bitte an', 'ruft mich bitte an', 'rufen sie mich bitte an', 'ruf mich mal an', 'ruft mich mal an', 'rufen sie mich mal an', 'ruf mich zurück', 'ruft mich zurück', 'rufen sie mich zurück', 'ruf mich bitte zurück', 'ruft mich bitte zurück', 'rufen sie mich bitte zurück', 'schreibt mir', 'schreiben sie mir', 'schreib mir', 'schickt mir ne sms', 'schreibt mir ne sms', 'schreibt mir auf whatsapp', 'eskalieren', 'eskaliert das', 'eskalieren sie das', 'bitte eskalieren', 'eskaliert', 'eskaliere', 'ruft mich', 'rufen sie mich', 'ruf mich', 'ruft mich bitte', 'rufen sie mich bitte', 'verbunden werden', 'weitergeleitet werden', 'per mail melden', 'telefonisch melden', 'meldet euch', 'eskaliert wird', 'eskaliert werden', 'dass das eskaliert wird', 'rückruf erbeten', 'rückruf erwünscht', 'bitte um rückruf', 'um kontaktaufnahme', 'um schriftliche kontaktaufnahme', 'um telefonische kontaktaufnahme', 'um eine kontaktaufnahme', 'bitte um kontaktaufnahme', 'kann sich jemand melden', 'sich jemand melden', 'jemand melden', 'zrugglüte', 'zruggrüefe', 'aalüte', 'alüte'],
    machine: ['roboter', 'ki', 'maschine', 'computer', 'chatbot', 'dem bot', 'den bot', 'automatik', 'automat', 'automaten'],
    alternative: ['oder'],
    stop: ['hör auf', 'hoer auf', 'hört auf', 'aufhören', 'stopp', 'stop', 'genug', 'schluss mit', 'weg mit', 'keine lust auf', 'kein bock auf', 'keinen bock auf', 'keinen bock mehr auf', 'rede nicht mit', 'red nicht mit', 'schreibe nicht mit', 'schreib nicht mit'],
    contactFollowing: ['mit dem ich sprechen kann', 'mit dem ich reden kann', 'mit dem ich sprechen könnte', 'mit der ich sprechen kann', 'mit dem man sprechen kann', 'mit dem ich chatten kann', 'mit dem ich schreiben kann', 'der mit mir spricht', 'der mit mir redet', 'den ich sprechen kann', 'mit dem ich redn kann', 'mit dem man reden kann', 'mit dem ich persönlich sprechen kann', 'mit dem ich persoenlich sprechen kann'],
    me: ['mich', 'mir', 'bei mir'],
    reachOut: ['anrufen', 'mailen', 'ne mail schreiben', 'eine mail schreiben', 'ne e-mail schreiben', 'eine e-mail schreiben', 'mail schreiben', 'schreiben', 'kontaktieren', 'zurückschreiben', 'antworten', 'anschreiben', 'eine email schicken', 'eine e-mail schicken', 'ne mail schicken', 'eine mail schicken', 'email schicken', 'mail schicken', 'eine nachricht schicken', 'sms schicken', 'ne sms schicken', 'eine sms schicken', 'whatsapp schreiben', 'durchklingeln', 'anklingeln', 'anruft', 'zurückruft', 'meldet', 'melden', 'anrufen würde', 'zurückrufen würde', 'telefonisch beraten', 'am telefon beraten', 'kontaktiert', 'telefonisch kontaktiert', 'telefonisch kontaktieren', 'eine mail schreibt', 'ne mail schreibt', 'mail schreibt', 'schreibt', 'erreiche', 'erreichen', 'komm ich zu', 'komme ich zu', 'komm ich hier zu', 'komme ich hier zu', 'komm ich bei euch zu', 'komme ich bei ihnen zu'],
    channel: ['per mail', 'per e-mail', 'per email', 'telefonisch', 'per telefon', 'per sms', 'unter', 'meine nummer', 'meine nummer ist', 'morgen', 'heute', 'heute noch', 'später', 'zurück', 'heute nachmittag', 'heut nachmittag', 'morgen früh', 'heute abend', 'an', 'vormittag', 'morgen vormittag', 'nachmittag', 'morgen nachmittag', 'abends'],
    topic: ['wegen', 'wegn', 'bezüglich', 'bzgl', 'betreffend', 'zum thema', 'in sachen', 'wg', 'wenn', 'sobald'],
    asksHow: ['wie', 'wann', 'ab wann', 'bis wann', 'um wie viel uhr', 'wo', 'ob'],
    asksWhat: ['was', 'welche*', 'wer', 'wem', 'wessen', 'wohin', 'woher', 'warum', 'weshalb', 'wieso', 'wie viele', 'wie viel'],
    contrast: ['aber', 'jedoch', 'leider', 'allerdings', 'nur leider', 'doch'],
    asksWhether: ['bin ich hier mit', 'bin ich mit', 'bin ich gerade mit', 'bin ich jetzt mit', 'schreibe ich mit', 'schreib ich mit', 'rede ich mit', 'spreche ich mit', 'chatte ich mit', 'schreibe ich hier mit', 'spreche ich hier mit', 'rede ich hier mit'],
    fromTeam: ['vom', 'von der', 'von eurer', 'von ihrer', 'von eurem', 'von ihrem', 'aus der', 'aus dem', 'aus eurer', 'aus ihrer', 'aus eurem', 'aus ihrem', 'in der'],
    met: ['ich habe mit', 'ich hab mit', 'hab schon mit', 'habe schon mit', 'ich sprach mit'],
  },
  fr: {
    condition: ['si', 'seulement si', 'uniquement si'],
    nobody: ['personne ne', 'aucun conseiller'],
    greeting: ['bonjour', 'bonsoir', 'salut', 'coucou', 'bonjour à tous', 'bjr', 'slt', 'bonjour madame', 'bonjour monsieur', 'allo', 'allô', 'rebonjour', 'cc', 'salut ça va', 'salut ca va', 'ça va', 'ca va', 'wesh', 'coucou ça va'],
    thanks: ['merci', 'merci beaucoup', 'merci bien', 'mercii', 'merci bcp', 'merci infiniment', 'mille mercis', 'merci mille fois', 'je vous remercie', 'je te remercie', 'grand merci', 'mrc', 'merci à vous', 'merci pour tout', 'cest gentil', 'trop gentil', 'très gentil', 'mci', 'mrc bcp', 'je tenais à vous remercier', 'je tenais simplement à vous remercier', 'je voulais vous remercier', 'je voulais juste vous remercier'],
    goodbye: ['au revoir', 'bonne journée', 'bonne soirée', 'à bientôt', 'a bientot', 'à plus', 'bonne fin de journée', 'bonne nuit', 'adieu', 'à la prochaine', 'bon week end', 'bon weekend', 'non merci', "c'est tout", "ce sera tout", 'cest tout', 'ce sera tout', 'non ça ira', 'ça ira', 'ca ira', 'à plus tard', 'a plus', 'cordialement', 'bien cordialement'],
    acknowledgement: ["d'accord", 'dacc', 'dac', 'parfait', 'très bien', 'tres bien', 'entendu', 'compris', 'bien reçu', 'bien noté', 'noté', 'nickel', "c'est noté", "c'est parfait", "c'est bon", "ça marche", 'ça roule', 'impeccable', 'pas de souci', 'pas de problème', 'je vois', 'bien', 'excellent', 'formidable', 'ok ça marche', 'ca marche', 'super', 'ça me va', 'ca me va', 'très clair', 'cest clair', 'ah daccord', 'ah ok', 'oki', 'top le service', 'super service', 'service au top', 'excellent service', 'service impeccable', 'au top', 'vous êtes au top', 'bravo à toute l équipe', "bravo à toute l'équipe", 'super rapide', 'très efficace', 'votre site est top', 'site top', 'service top', 'genial', 'bravo pour le site', 'le site est super', 'il est super', 'c est réglé', 'c est regle', 'réglé', 'regle', 'résolu', 'resolu', 'ça marche maintenant', 'super boutique', 'top boutique'],
    praise: ['bravo', 'chapeau', 'félicitations', 'top', 'je recommande', 'je vous recommande', 'continuez comme ça', 'cinq étoiles', '5 étoiles', 'génial', 'j\'adore', 'j\'adore votre boutique', 'trop beaux', 'trop belles', 'trop contente', 'trop content', 'magnifique', 'est magnifique', 'adorables', 'trop mignon', 'trop mignonne', 'trop mignons', 'je la recommande', 'je le recommande', 'je vous recommande vivement', 'une pépite', 'la meilleure boutique', 'meilleure boutique', 'le meilleur site', 'vous êtes les meilleurs', 'vous êtes au top', 'au top', 'très apprécié', 'c\'est très apprécié', 'trop bien'],
    smallTalkFillers: ['à vous', 'a vous', 'vous', 'à toi', 'toi', 'pour votre aide', 'pour ton aide', "pour l'info", 'pour les infos', 'pour la réponse', 'pour tout', 'encore', 'et', 'alors', 'oh', 'ah', 'bien', 'beaucoup', 'madame', 'monsieur', 'tout le monde', 'encore une fois', 'donc', 'vraiment', 'à tous', 'infiniment', "d'avance", 'encore', 'bien', 'pour votre réponse', 'pour la réponse rapide', 'pour linfo', 'pour les infos', 'pour tout', 'non', 'bon', 'à vous aussi', 'aussi', 'vous êtes', 'vous avez été', 'bcp', 'franchement', 'votre site est', 'boutique', 'la boutique', 'votre boutique', 'magasin', 'site', 'le site', 'votre site', 'produits', 'vos produits'],
    person: ['conseiller*', 'conseillère*', 'humain', 'un humain', 'être humain', 'personne réelle', 'vraie personne', 'vrai personne', 'une personne', 'agent', 'opérateur*', 'operateur*', 'service client', 'responsable', 'interlocuteur*', 'quelquun de réel', 'un vrai humain', 'technicien*', 'une vraie personne', 'un conseiller', 'une conseillère', 'un être humain', 'personne physique', 'quelquun de vrai', 'vrai humain', 'service clients', 'service après vente', 'sav', 'support client', 'agent humain', 'opérateur humain', 'contact humain', 'un agent', 'superviseur*', 'manager', 'chef', 'directeur*', 'directrice*', 'service retours', 'service des retours', 'service comptabilité', 'service facturation', 'patron', 'patronne', 'gérant', 'gérante', 'quelquun au tel', 'quelquun au téléphone', 'collaborateur*', 'collaboratrice*', 'service comptabilite', 'supérieur', 'superieur', 'interlocuteur humain', 'personne humaine', 'service reclamations', 'service réclamations', 'service réclamation', 'la compta', 'compta', 'service pro', 'vrai gens', 'un vrai gens', 'des vrais gens', 'de vrais gens', 'membre de votre équipe', 'quelquun du sav', 'qqn du sav', 'un vrai gars', 'vrai gars', 'conseillé', 'conseillee', 'conseillée', 'service retour', 'le service retour', 'propriétaire', 'le propriétaire', 'proprietaire', 'une personne de chez vous', 'quelqu\'un de chez vous', 'esthéticienne', 'esthéticiennes', 'une de vos esthéticiennes', 'service commercial', 'votre service commercial', 'un conseiller de vente', 'un vendeur', 'une vendeuse', 'agent en direct', 'un agent en direct', 'conseiller en direct', 'un conseiller en direct', 'une personne en direct', 'quelqu\'un en direct'],
    someone: ['quelquun', "quelqu'un", 'support', 'le support', 'lassistance', 'assistance', 'votre équipe', 'quelquun du service client', 'qqn', 'qqun', 'quelqun', 'un collègue', 'un de vos collègues', 'une collègue', 'un membre de l équipe', "un membre de l'équipe", 'quelquun de chez vous', 'quelquun de votre équipe', 'quelquun de votre team', 'quelquun dautre', 'une de vos collègues', 'lun de vos collègues', 'un membre de votre équipe', 'qqn de vivant', 'quelquun de vivant', 'une dame', 'un monsieur', 'une dame ou un monsieur', 'dame ou un monsieur'],
    contact: ['parler', 'discuter', 'échanger', 'joindre', 'mettre en relation', 'mettez moi', 'me mettre', 'passez moi', 'passer', 'transférer', 'transferez moi', 'me passer', 'avoir', 'mis en relation', 'mise en relation', 'en relation avec', 'en contact avec', 'transférez', 'transferez', 'passez', 'passe moi', 'basculer', 'basculez moi', 'redirigez moi', 'rediriger', 'échanger avec', 'discuter avec', 'écrire à', 'avoir affaire à', 'parler avec', 'reprendre la conversation', 'reprendre mon dossier', 'reprendre le dossier', 'prendre le relais', 'reprendre la main', 'echanger avec', 'tu me passes', 'vous me passez', 'sen occupe', 'prenne en charge', 'prendre en charge', 'un call avec', 'voir ça avec', 'voir ca avec', 'causer', 'causer avec', 'transmettre ma demande à', 'transmettre ma demande', 'transférer ma demande à', 'faire suivre ma demande à', 'transmettre mon dossier à', 'faut que je parle à', 'faut que je parle a', 'faut que je parle', "m'entretenir avec", "m'entretenir", 's\'occupe de', 's\'occuper de', 'd\'échanger avec', 'jaser', 'jaser avec'],
    want: ['je veux', 'je voudrais', 'je souhaite', 'jaimerais', "j'aimerais", 'je demande', 'puis je avoir', 'je peux avoir', 'veux', 'voudrais', 'je souhaiterais', 'je préfère', 'je préférerais', 'il me faut', 'jai besoin dun', 'jai besoin dune', 'besoin dun', 'besoin dune', 'jveu', 'jveux', 'jve'],
    please: ['svp', 'stp', "s'il vous plaît", "s'il vous plait", "s'il te plaît", 'sil vous plait', 'merci', 'vite', 'maintenant', 'ou que des robots', 'ou juste un robot', 'ou seulement des robots', 'ou juste un bot', 'qui peut maider', 'qui pourrait maider', 'ou c que des robots', 'ou cest que des robots', 'ou que des bots', 'ou pas', 'si possible', 'si vous pouvez', 'si vous le pouvez', 'en ce moment', 'tout de suite', 'actuellement', 'dès que possible', 'des que possible', 'au plus vite', 'rapidement', 'au plus tôt'],
    personFillers: ['un', 'une', 'le', 'la', 'à', 'a', 'avec', 'vrai', 'vraie', 'réel', 'réelle', 'du', 'au', 'mais', 'plutôt', 'plutot', 'là', 'ici', 'dans le chat', 'au téléphone', 'maintenant', 'des', 'de', 'un vrai', 'une vraie', 'humain', 'quelque part', 'à vous', 'de la boutique', 'du magasin', 'du site', 'de chez vous', 'de votre équipe', 'de léquipe', 'par', 'derrière', 'dans ce chat'],
    notPerson: ['personne ne', 'personne na', 'humanité'],
    articles: true,
    negation: ['ne', 'pas', 'jamais', 'sans', 'plus', 'non'],
    contactFollowing: ['à qui parler', 'a qui parler', 'avec qui parler', 'à qui je peux parler', 'avec qui je peux parler', 'à qui je pourrais parler', 'avec qui je pourrais echanger', 'avec qui echanger', 'avec qui je pourrais parler', 'avec qui je puisse parler'],
    askFor: ['puis je avoir', 'je peux avoir', 'pouvez vous me passer', 'est ce que je peux avoir', 'je pourrais avoir', 'vous pouvez', 'pouvez vous', 'tu peux', 'pourriez vous', 'vous pourriez', 'tu pourrais', 'pourrait', 'pourriez', 'pouvez', 'serait il possible', 'serait-il possible', 'est il possible', 'c possible', 'cest possible', 'peut', 'peut il', 'peut-il', 'moyen d avoir', 'ya moyen d avoir', 'y a moyen d avoir', 'y a moyen d\'avoir', 'moyen d\'avoir', 'ya moyen d\'avoir'],
    exists: ['y a t il', 'y a til', 'il y a', 'y a', 'ya', 'avez vous', 'est ce quil y a', 'y aurait il'],
    available: ['disponible', 'dispo', 'en ligne', 'là', 'est dispo', 'est disponible', 'est en ligne', 'serait dispo', 'sera dispo'],
    callback: ['me rappeler', 'rappelez moi', 'rappelle moi', 'rappelé', 'rappelée', 'me recontacter', 'me contacter', 'mappeler', 'mappelle', 'rappel', 'un rappel', 'me téléphoner', 'être rappelé', 'être rappelée', 'être recontacté', 'être recontactée', 'menvoyer un mail', 'menvoyer un email', 'menvoyer un mel', 'menvoyer un message', 'mecrire', 'me joindre', 'ecrivez moi', 'ecris moi', 'appelez moi', 'appelle moi', 'contactez moi', 'envoyez moi un mail', 'envoyez moi un email', 'me répondre par mail', 'menvoyer un texto', 'menvoyer un sms', 'faites remonter', 'faire remonter', 'escaladez', 'envoyez moi un sms', 'envoyez moi un texto', 'rappelez moi svp', 'être mis en relation', 'etre mis en relation', 'être mise en relation', 'etre mise en relation', 'envoyez moi plutot un mail', 'envoyez moi plutôt un mail', 'envoyez-moi un mail', 'escalader mon dossier', 'escalader ma demande', 'escalader le dossier', 'escalader ma réclamation', 'me faire rappeler', 'me texter', 'texte moi', 'menvoie un sms', 'menvoie un mail', 'mecrive', 'me contacte', 'me rappelle', 'me téléphone', 'de me téléphoner', 'de me rappeler', 'de me contacter', 'lappeler', 'la rappeler', 'le rappeler', 'faites moi rappeler', 'faites-moi rappeler', 'être contactés', 'être contacté', 'être contactée', 'être recontactés', 'l\'appeler', 'me faire recontacter', 'faire recontacter'],
    machine: ['robot', 'le robot', 'au robot', 'chatbot', 'ia', 'machine', 'une machine', 'un robot', 'bot', 'assistant automatique', 'l\'assistant automatique'],
    alternative: ['ou'],
    stop: ['stop', 'arrête', 'arrêtez', 'assez', 'assez de', 'marre', 'marre du', 'marre de', 'ras le bol', 'fini', 'pas envie de', "j'ai pas envie de", "je n'ai pas envie de", 'parle pas à', 'parle pas avec', 'je parle pas à', 'pas envie de causer avec', 'causer avec'],
    channel: ['par mail', 'par email', 'par e-mail', 'par téléphone', 'par tel', 'par écrit', 'par sms', 'au', 'sur le', 'mon numéro', 'mon numéro est', 'demain', "aujourd'hui", 'plus tard', 'demain matin', 'ce soir', 'cet après midi', 'dans la journée', 'au tel', 'au téléphone', 'au telephone'],
    topic: ['au sujet de', 'au sujet du', 'au sujet des', 'concernant', 'à propos de', 'à propos du', 'pour', 'rapport à', 'quand', 'dès que', 'lorsque'],
    me: ['me', 'm', 'moi'],
    reachOut: ['appeler', 'téléphoner', 'écrire', 'envoyer un mail', 'envoyer un email', 'envoyer un e-mail', 'par téléphone', 'par mail', 'par email', 'par e-mail', 'par sms', 'envoyer un texto', 'envoyer un sms', 'texto'],
    asksHow: ['comment', 'quand', 'où', 'à quelle heure', "jusqu'à quelle heure"],
    asksWhat: ['quoi', 'quel', 'quelle', 'quels', 'quelles', 'qui', 'pourquoi', 'combien', 'qu est ce', 'lequel', 'laquelle'],
    contrast: ['mais', 'cependant', 'malheureusement', 'par contre', 'sauf que', 'pourtant'],
    asksWhether: ['je parle à', 'je parle avec', 'je discute avec', 'est-ce que je parle'],
    fromTeam: ['du', 'de la', 'de votre', 'du service', 'au service'],
    met: ['j\'ai parlé à', 'j\'ai parlé avec', 'j\'ai déjà parlé à', 'j\'ai déjà parlé avec', 'j\'ai eu'],
  },
  es: {
    condition: ['si', 'solo si', 'sólo si', 'únicamente si'],
    nobody: ['nadie'],
    greeting: ['hola', 'holaa', 'buenos días', 'buenos dias', 'buen día', 'buenas', 'buenas tardes', 'buenas noches', 'qué tal', 'que tal', 'saludos', 'hola buenas', 'wenas', 'wenas tardes', 'wenos dias', 'q tal', 'holaa q tal', 'qué onda', 'que onda'],
    thanks: ['gracias', 'muchas gracias', 'mil gracias', 'muchísimas gracias', 'gracias mil', 'te agradezco', 'se lo agradezco', 'le agradezco', 'grax', 'grasias', 'muy amable', 'qué amable', 'que amable', 'muy amables', 'se agradece'],
    goodbye: ['adiós', 'adios', 'hasta luego', 'hasta pronto', 'hasta la próxima', 'nos vemos', 'chao', 'chau', 'que tenga un buen día', 'buen día', 'que tengas un buen día', 'hasta mañana', 'no gracias', 'eso es todo', 'nada más', 'que tenga buen día', 'que tengas buen día', 'feliz día', 'un saludo', 'saludos', 'un cordial saludo', 'saludos cordiales', 'que tengas buena noche', 'que tengas buena tarde', 'que tengas buenas noches', 'feliz tarde', 'feliz noche', 'buenas noches', 'que tenga buena tarde', 'que tenga buena noche'],
    acknowledgement: ['vale', 'perfecto', 'entendido', 'de acuerdo', 'genial', 'muy bien', 'bien', 'claro', 'listo', 'entiendo', 'estupendo', 'excelente', 'okey', 'dale', 'bueno', 'está bien', 'esta bien', 'sin problema', 'ya veo', 'guay', 'chévere', 'sale', 'ok perfecto', 'okay', 'oki', 'ya está', 'ya esta', 'todo claro', 'todo bien', 'me sirve', 'eso es todo', 'excelente servicio', 'buen servicio', 'gran servicio', 'muy buen servicio', 'servicio de diez', 'genial el servicio', 'los mejores', 'unos cracks', 'crack', 'qué majos', 'muy amables', 'da gusto', 'okis', 'que buena atencion', 'qué buena atención', 'buena atencion', 'buena atención', 'excelente atención', 'excelente atencion', 'me encanta la tienda', 'me encanta su tienda', 'qué rapidez', 'que rapidez', 'enhorabuena por el servicio', 'ya esta solucionado', 'ya está solucionado', 'solucionado', 'resuelto', 'ya funciona', 'me encanta vuestra tienda', 'siempre llega todo rapidisimo', 'siempre llega todo rápido', 'llega todo rapidisimo', 'recomendadísimo', 'súper tienda', 'gran tienda', 'tienda top'],
    praise: ['enhorabuena', 'felicidades', 'bravo', 'chapó', 'de diez', 'lo recomiendo', 'os recomiendo', 'recomendado', 'cinco estrellas', '5 estrellas', 'seguid así', 'sigan así', 'me encanta', 'me encanta la tienda', 'me encanta vuestra tienda', 'me encanta su tienda', 'le encanta', 'les encanta', 'le chifla', 'son lo más', 'sois lo más', 'lo más', 'son los mejores', 'sois los mejores', 'la mejor tienda', 'mejor tienda', 'sois unos cracks', 'cracks', 'sois geniales', 'son geniales', 'os quiero', 'los amo'],
    smallTalkFillers: ['a ti', 'a usted', 'por tu ayuda', 'por su ayuda', 'por la ayuda', 'por la información', 'por todo', 'de nuevo', 'otra vez', 'y', 'pues', 'ah', 'oh', 'amigo', 'señor', 'señora', 'a todos', 'entonces', 'de antemano', 'muy', 'tan', 'a ti también', 'igualmente', 'por la respuesta', 'por responder', 'por la info', 'de verdad', 'no', 'sí', 'si', 'sois', 'son', 'me has ayudado', 'me habéis ayudado', 'me ha ayudado', 'me ayudaste', 'un montón', 'mucho', 'jaja', 'jeje', 'guapa', 'guapo', 'encima', 'súper rápido', 'tienda', 'la tienda', 'vuestra tienda', 'su tienda', 'web', 'la web', 'productos', 'vuestros productos', 'solo quería decir', 'solo quería decir que', 'solo queria decir', 'solo quería deciros', 'solo quería decirles'],
    person: ['persona', 'persona real', 'una persona', 'humano', 'un humano', 'ser humano', 'agente*', 'asesor', 'asesora', 'operador*', 'representante*', 'servicio al cliente', 'atención al cliente', 'empleado*', 'encargado*', 'alguien real', 'persona de verdad', 'ejecutivo*', 'asesores', 'asesoras', 'agente humano', 'humano real', 'alguien de verdad', 'persona humana', 'un asesor', 'una asesora', 'soporte humano', 'atención humana', 'atencion humana', 'servicio de atención al cliente', 'atencion al cliente', 'operadora', 'ejecutiva', 'gerente', 'supervisor*', 'jefe', 'jefa', 'responsable', 'departamento de devoluciones', 'área de devoluciones', 'dueño', 'dueña', 'alguien al teléfono', 'compañero', 'compañera', 'departamento de facturación', 'departamento de facturacion', 'departamento de reclamaciones', 'encargado', 'encargada', 'el responsable', 'técnico', 'un técnico', 'alguien del staff', 'superior', 'un superior', 'facturación', 'facturacion', 'contabilidad', 'con devoluciones', 'con facturación', 'con facturacion', 'asesro', 'alguien de carne y hueso', 'una persona de carne y hueso', 'un comercial', 'una comercial', 'un experto', 'una experta', 'un mecánico', 'una técnica', 'algún comercial', 'el comercial', 'algún asesor comercial'],
    someone: ['alguien', 'soporte', 'el soporte', 'su equipo', 'alguien de soporte', 'alguien del equipo', 'un compañero', 'una compañera', 'alguna de sus compañeras', 'alguno de sus compañeros', 'un miembro del equipo', 'una señorita', 'un señor', 'una señorita o un señor', 'señorita o un señor'],
    contact: ['hablar', 'conversar', 'comunicarme', 'chatear', 'pásame', 'pasame', 'páseme', 'paseme', 'comuníqueme', 'comuniqueme', 'conectarme', 'conécteme', 'transferirme', 'transfiéreme', 'transfiérame', 'contacto', 'comunícame', 'comunicame', 'comuníquenme', 'contáctame', 'ponme con', 'ponerme con', 'pónganme con', 'póngame con', 'me atienda', 'me atiendan', 'atienda', 'atiendan', 'atender', 'me pasan', 'me pueden pasar', 'me puede pasar', 'pasarme', 'pásenme', 'pasenme', 'transferir', 'transfiéranme', 'derivar', 'derívame', 'derivame', 'escribir con', 'me pasas', 'me pasa', 'me comunicas', 'me comunica', 'me comunican', 'me pueden comunicar', 'comunicar con', 'comunicarme con', 'tratarlo con', 'tratar esto con', 'tratar con', 'hacerse cargo', 'que se haga cargo', 'tomar el caso', 'tomar la conversación', 'tome la conversación', 'ablar', 'ablar con', 'se encargue', 'se encargue de esto', 'hablarlo', 'hablarlo con', 'tratarlo', 'que lo pasen a', 'que lo pasen con', 'pasarlo a', 'lo pasen a', 'me pones con'],
    want: ['quiero', 'quisiera', 'necesito', 'me gustaría', 'me gustaria', 'deseo', 'puedo tener', 'quiero un', 'quiero una', 'quiero que', 'quisiera que', 'necesito que', 'kiero', 'prefiero'],
    please: ['por favor', 'porfa', 'porfavor', 'xfa', 'ya', 'urgente', 'ahora', 'que me pueda ayudar', 'que me ayude', 'si es posible', 'si puede', 'si pueden', 'si se puede', 'ahora mismo', 'en este momento', 'ahorita', 'lo antes posible', 'cuanto antes', 'lo más pronto posible', 'lo mas pronto posible'],
    personFillers: ['un', 'una', 'el', 'la', 'con', 'real', 'de verdad', 'al', 'a', 'algún', 'alguna', 'algun', 'ahí', 'ahi', 'aquí', 'aqui', 'sino', 'mejor', 'en el chat', 'por teléfono', 'humano', 'de carne y hueso', 'por ahí', 'por ahi', 'por aquí', 'por aqui', 'de la tienda'],
    notPerson: ['persona que', 'personas', 'humanos', 'humanidad'],
    articles: true,
    negation: ['no', 'nunca', 'sin'],
    contactFollowing: ['con quien hablar', 'con quien pueda hablar', 'con quién hablar', 'con el que pueda hablar', 'con quien puedo hablar', 'con la que pueda hablar', 'con la que hablar', 'con la que puedo hablar', 'con el que hablar', 'con el que puedo hablar', 'con quien conversar', 'con la que pueda conversar'],
    askFor: ['puedo tener', 'me da', 'me das', 'me pueden dar', 'me podrían pasar', 'podría hablar con', 'podría', 'podrían', 'pueden', 'puede', 'podéis', 'podeis'],
    exists: ['hay', 'tienen', 'existe'],
    available: ['disponible', 'disponibles', 'en línea', 'ahí', 'conectado', 'atendiendo', 'libre'],
    callback: ['me llame', 'me llamen', 'llamarme', 'me puede llamar', 'me pueden llamar', 'me llama', 'me llaman', 'me contacte', 'me contacten', 'contactarme', 'me devuelva la llamada', 'devolverme la llamada', 'una llamada', 'escríbanme', 'escríbame', 'escríbeme', 'mándenme un correo', 'mándame un correo', 'me escriban', 'me escriba', 'me escribe', 'me escribes', 'me marque', 'me marquen', 'llámenme', 'me mandan un sms', 'mándenme un sms', 'escalen esto', 'escalar esto', 'escaladlo', 'escálenlo', 'escalad esto', 'escalen', 'escala esto', 'escalar mi caso', 'escalen mi caso', 'llámame', 'llamadme', 'llámeme', 'escribidme', 'contáctame', 'contactadme', 'contáctenme', 'mandadme un correo', 'mándame un sms', 'mándame un whatsapp', 'mándenme un whatsapp', 'mandadme un whatsapp', 'escribirme', 'escribirme un correo', 'mándenme un mensaje', 'mandenme un mensaje', 'mándame un mensaje', 'mandame un mensaje', 'me mandan un mensaje', 'ser transferido', 'ser transferida', 'mandadme un email', 'mandadme un mail', 'me devuelvan la llamada', 'me mande un correo', 'me mande un mail', 'me mande un email', 'avísenme', 'avisenme', 'avísame', 'avisame', 'me podeis escribir', 'me podéis escribir', 'me pueden escribir', 'me puedes escribir', 'mandame un mail', 'mándame un mail', 'mandame un email', 'mándame un email', 'mandame un correo', 'llamarla', 'llamarlo', 'llamarle', 'que me llamen', 'que me llame', 'que me contacten', 'que me contacte', 'que me escriban', 'que me escriba', 'que me llamara', 'que me llamaran', 'escala mi caso', 'escalad mi caso', 'escala mi reclamación', 'escalen mi reclamación', 'me devolviera la llamada', 'me devolvieran la llamada', 'devolvieran la llamada', 'escalarlo y llamarme', 'escalarlo', 'telefonearme', 'me puede telefonear', 'me llamara', 'me llamaran', 'me llamase', 'me llamasen', 'me llamara por teléfono', 'me mande un mensaje', 'me manden un mensaje', 'me mande un whatsapp', 'me manden un whatsapp', 'me mande un sms', 'enviame un sms', 'envíame un sms', 'envíenme un sms', 'enviame un mensaje', 'envíame un mensaje', 'enviame un whatsapp', 'mandarme un mensaje', 'mandarme un mensaje de texto', 'mandarme un sms', 'enviarme un mensaje', 'enviarme un sms', 'mandarme un correo', 'mandarme un mail', 'enviarme un correo', 'enviarme un mail', 'mandarme un email', 'enviarme un email', 'se ponga en contacto con nosotros', 'se pongan en contacto con nosotros', 'me asesorara', 'me asesore', 'me oriente'],
    machine: ['robot', 'el robot', 'bot', 'chatbot', 'máquina', 'una máquina', 'ia', 'contestador'],
    alternative: ['o'],
    stop: ['basta', 'basta de', 'stop', 'no más', 'no mas', 'harto de', 'harta de', 'deja el', 'ya no quiero', 'no me apetece', 'no tengo ganas de', 'no hablo con', 'no quiero hablar con'],
    me: ['me'],
    reachOut: ['mandar un correo', 'mandar un mail', 'mandar un email', 'mandar un mensaje', 'enviar un correo', 'enviar un mail', 'enviar un email', 'escribir', 'llamar', 'contactar', 'devolver la llamada', 'mandar un sms', 'mandar un whatsapp', 'marcar', 'telefonear'],
    channel: ['por correo', 'por mail', 'por email', 'por teléfono', 'por whatsapp', 'al correo', 'al', 'mi número', 'mi número es', 'mañana', 'hoy', 'más tarde', 'cuando puedas', 'cuando pueda', 'cuando podáis'],
    topic: ['sobre', 'acerca de', 'por lo de', 'respecto a', 'respecto al', 'para', 'en relación con', 'cuando', 'en cuanto'],
    asksHow: ['cómo', 'cuándo', 'dónde', 'a qué hora', 'hasta qué hora'],
    asksWhat: ['cuál', 'cuáles', 'quién', 'quiénes', 'por qué', 'cuántos', 'cuántas', 'cuánto', 'cuánta'],
    contrast: ['pero', 'sin embargo', 'lamentablemente', 'desafortunadamente', 'aunque', 'solo que'],
    asksWhether: ['estoy hablando con', 'estoy chateando con', 'estoy escribiendo con'],
    fromTeam: ['del', 'de la', 'de su', 'de vuestro', 'de vuestra', 'de tu'],
    met: ['hablé con', 'ya hablé con', 'he hablado con', 'ya he hablado con'],
  },
  it: {
    condition: ['se', 'solo se', 'soltanto se'],
    nobody: ['nessuno'],
    greeting: ['ciao', 'buongiorno', 'buonasera', 'salve', 'buon pomeriggio', 'ehi', 'ciao a tutti', 'buondì', 'buona sera', 'buon giorno', 'buonasera a tutti', 'tutto bene', 'buonasera tutto bene'],
    thanks: ['grazie', 'grazie mille', 'grazie tante', 'molte grazie', 'grazie infinite', 'ti ringrazio', 'la ringrazio', 'vi ringrazio', 'grz', 'graize', 'grazi', 'gentilissimo', 'gentilissima', 'gentilissimi', 'gentilissime', 'molto gentile', 'troppo gentile', 'gentile', 'ti ringrazio tanto', 'graz'],
    goodbye: ['arrivederci', 'ciao ciao', 'a presto', 'buona giornata', 'buona serata', 'a dopo', 'alla prossima', 'addio', 'buonanotte', 'arrivederla', 'no grazie', 'niente altro', 'è tutto', 'buon weekend', 'buon fine settimana', 'e tutto', 'nientaltro', 'ci vediamo', 'ci sentiamo', 'a risentirci'],
    acknowledgement: ['va bene', 'perfetto', 'capito', 'ho capito', 'ottimo', 'benissimo', 'bene', "d'accordo", 'daccordo', 'chiaro', 'certo', 'giusto', 'tutto chiaro', 'fantastico', 'eccellente', 'bello', 'ok perfetto', 'ok va bene', 'okay', 'tutto ok', 'tutto a posto', 'a posto', 'ricevuto', 'inteso', 'chiarissimo', 'super', 'va benissimo', 'servizio top', 'ottimo servizio', 'servizio eccellente', 'servizio impeccabile', 'i migliori', 'siete i migliori', 'siete stati super', 'bella', 'velocissimi', 'di grande aiuto', 'complimenti per il servizio', 'adoro il vostro negozio', 'tutto risolto', 'risolto', 'ora funziona', 'adesso funziona', 'complimenti per il negozio', 'spedizioni sempre velocissime', 'spedizione velocissima', 'spedizioni velocissime', 'super negozio', 'negozio top', 'lo consiglio', 'vi consiglio a tutti'],
    praise: ['bravissimi', 'bravi', 'bravissima', 'complimenti', 'complimentoni', 'top', 'consigliatissimo', 'cinque stelle', '5 stelle', 'continuate così', 'siete mitici', 'mitici', 'bellissimo', 'è bellissimo', 'bellissima', 'siete i migliori', 'il negozio migliore', 'il miglior negozio', 'miglior negozio', 'il migliore', 'siete fantastici', 'siete grandi', 'grandi', 'vi adoro', 'adoro questo negozio', 'adoro il vostro negozio'],
    smallTalkFillers: ['a te', 'a lei', 'a voi', 'per laiuto', "per l'aiuto", 'per le informazioni', 'per tutto', 'ancora', 'e', 'allora', 'ah', 'oh', 'di nuovo', 'davvero', 'tanto', 'tante', 'mille', 'tutti', 'molto', 'tantissimo', 'per la risposta', 'per la disponibilità', 'per le info', 'anche a te', 'anche a voi', 'no', 'sì', 'si', 'siete', 'siete stati', 'sei stato', 'sei stata', 'mi sei stato', 'mi sei stata', 'come sempre', 'negozio', 'il negozio', 'sito', 'il sito', 'prodotti', 'i vostri prodotti'],
    person: ['operatore*', 'operatrice*', 'persona', 'persona reale', 'una persona', 'umano', 'essere umano', 'agente*', 'consulente*', 'assistente*', 'servizio clienti', 'addetto*', 'impiegato*', 'responsabile', 'qualcuno di reale', 'persona vera', 'operatore umano', 'un umano', 'addetta*', 'assistenza clienti', 'customer care', 'assistente umano', 'qualcuno in carne e ossa', 'in carne e ossa', 'supervisore*', 'direttore*', 'direttrice*', 'manager', 'ufficio resi', 'ufficio reclami', 'titolare', 'qualcuno al telefono', 'collaboratore*', 'collaboratrice*', 'collega', 'un collega', 'ufficio contabilità', 'ufficio contabilita', 'contabilità', 'contabilita', 'amministrazione', 'ufficio amministrativo', 'incaricato', 'incaricata', 'direttore', 'direttrice', 'reparto', 'reparto resi', 'reparto tecnico', 'servizio tecnico', 'assistenza tecnica', 'assistenza umana', 'supporto umano', 'superiore', 'un superiore', 'interlocutore', 'interlocutrice', 'qualcuno di vero', 'titolare del negozio', 'proprietario', 'proprietaria', 'il proprietario', 'commerciale', 'un commerciale', 'ufficio clienti', 'ufficio amministrazione', 'l ufficio resi', "l'ufficio resi", "l'ufficio reclami", "l'ufficio clienti", 'consulente', 'un consulente', 'estetista', 'un\'estetista', 'una vostra estetista', 'un vostro consulente'],
    someone: ['qualcuno', 'supporto', 'il supporto', 'lassistenza', 'assistenza', 'qualcuno del servizio clienti', 'un collega', 'un vostro collega', 'un suo collega', 'un tuo collega', 'una collega', 'un membro del team', 'qlcn', 'qlc', 'chi di dovere', 'qualcuno più in alto', 'qualcuno piu in alto', 'qualcuno di più alto', 'qualcuno sopra di te', "qualcuno dell'assistenza", 'qualcuno del supporto', "qualcuno dell'ufficio resi", 'una signorina', 'una signorina del negozio', 'quaccheduno', 'quacchedun'],
    contact: ['parlare', 'chattare', 'passarmi', 'passami', 'mi passi', 'mettermi in contatto', 'collegarmi', 'collegami', 'trasferirmi', 'sentire', 'avere', 'mettetemi', 'mettimi', 'mettermi', 'in contatto con', 'mi mettete', 'mi metta', 'fatemi parlare', 'mi fate parlare', 'passatemi', 'passare', 'trasferite', 'trasferitemi', 'trasferiscimi', 'collegatemi', 'scrivere con', 'parlare con', 'mi passate', 'mi passa', 'inoltrata all', 'inoltrare all', 'inoltrata a', 'inoltrare a', 'passare a', 'parlarne', 'parlarne a voce', 'a voce', 'mi giri', 'girarmi', 'giratemi', 'inoltrate', 'fate salire', 'mi trasferisce', 'mi trasferite', 'prendere in mano', 'prendere in carico', 'prenda in carico', 'prenda in mano', 'venisse inoltrata', 'inoltrata', 'inoltrare', 'mi trasferisca', 'inoltrate il reclamo a', 'passiate la pratica a', 'passate la pratica a', 'passare la pratica a', 'passiate la pratica', 'passate la pratica', 'parlare cn', 'venga segnalata a', 'segnalata a', 'segnalare a', 'venga segnalato a', 'girare la mia pratica a', 'girare la pratica a', 'mettere con', 'mi potete mettere con', 'mi mettete con', 'parlà', 'fate parlà', 'me fate parlà', 'me passate', 'me passate a', 'mi passate a'],
    want: ['voglio', 'vorrei', 'ho bisogno di', 'desidero', 'posso avere', 'mi serve', 'preferirei', 'preferisco'],
    please: ['per favore', 'perfavore', 'per piacere', 'grazie', 'subito', 'urgente', 'adesso', 'pf', 'che mi possa aiutare', 'che mi aiuti', 'ke mi aiuti', 'che mi aiuti cn', 'ke mi aiuti cn', 'se possibile', 'se potete', 'se può', 'se puo', 'ora', 'in questo momento', 'al più presto', 'al piu presto', 'quanto prima', 'il prima possibile', 'appena possibile'],
    personFillers: ['un', 'una', 'uno', 'con', 'il', 'la', 'lo', 'l', 'reale', 'vera', 'vero', 'all', 'al', 'a', 'qualche', 'qui', 'lì', 'li', 'ma', 'piuttosto', 'in chat', 'al telefono', 'adesso', 'ora', 'in carne e ossa', 'umano', 'voi', 'lei', 'del negozio', 'dall', 'dal', 'dalla', 'col', 'coi', 'colla', 'con il', 'con la', 'cn', 'dietro', 'lì dietro', 'li dietro'],
    notPerson: ['persona che', 'persone'],
    articles: true,
    negation: ['non', 'mai', 'senza'],
    contactFollowing: ['con cui parlare', 'con cui posso parlare', 'con cui potrei parlare', 'a cui parlare', 'con cui poter parlare'],
    askFor: ['posso avere', 'mi date', 'mi dai', 'potrei avere', 'posso', 'potete', 'può', 'puo', 'potreste', 'potrebbe', 'potresti', 'sarebbe possibile', 'è possibile', 'e possibile', 'è possibile'],
    exists: ['ce', 'c è', 'ci sono', 'avete'],
    available: ['disponibile', 'disponibili', 'online', 'in linea', 'libero'],
    callback: ['ricontattato', 'ricontattata', 'ricontattarmi', 'richiamato', 'richiamata', 'richiamarmi', 'mi richiami', 'mi richiamate', 'chiamarmi', 'mi chiami', 'mi chiamate', 'contattarmi', 'mi contatti', 'mi contattate', 'farmi richiamare', 'una chiamata', 'essere richiamato', 'essere richiamata', 'essere ricontattato', 'essere ricontattata', 'fatemi richiamare', 'fammi richiamare', 'richiamatemi', 'richiamami', 'fatemi chiamare', 'fammi chiamare', 'scrivetemi', 'scrivimi', 'mandatemi una mail', 'mandami una mail', 'mi scrivete', 'mi scrivi', 'mi scriva', 'mi mandate un sms', 'mandatemi un sms', 'chiamatemi', 'chiamami', 'telefonatemi', 'telefonami', 'contattatemi', 'contattami', 'mandatemi un messaggio', 'scrivetemi su whatsapp', 'far contattare', 'farmi contattare', 'mi fate contattare', 'mi contattasse', 'mi contattassero', 'mi contattino', 'essere contattato', 'essere contattata', 'essere contattati', 'essere richiamati', 'telefonarmi', 'mi telefoni', 'mi telefona', 'mi telefonate', 'fare uno squillo', 'farmi uno squillo', 'mi contatta', 'mi fate scrivere', 'fatemi scrivere', 'mi fate chiamare', 'mi fate richiamare', 'mi fate ricontattare', 'fatemi ricontattare', 'chiamare lei', 'chiamarla', 'chiamarlo', 'telefonarle', 'telefonargli', 'scalate la mia pratica', 'scalare la mia pratica', 'scalate la pratica', 'scalate', 'mi segua al telefono', 'mi seguisse al telefono', 'mi può chiamare', 'mi potete chiamare', 'farmi richiamare da', 'rispondermi', 'rispondetemi', 'mi risponda', 'mi rispondiate', 'mi seguisse', 'mi segua', 'farmi scrivere', 'mi richiamasse', 'mi richiamassero', 'mi chiama', 'scrivermi', 'scrivermi una mail', 'mi telefonasse', 'mi telefonassero', 'mi chiamasse', 'mi chiamassero', 'mi chiamate voi', 'mandarmi una mail', 'mandami un sms', 'mandami un messaggio', 'mandami un whatsapp', 'mandatemi un whatsapp', 'scrivimi su whatsapp', 'farmi chiamare'],
    machine: ['robot', 'il robot', 'bot', 'chatbot', 'macchina', 'una macchina', 'ia', 'risponditore automatico'],
    alternative: ['o'],
    stop: ['basta', 'basta con', 'stop', 'smettila', 'smettetela', 'non ne posso più di', 'non mi va di', 'non ho voglia di', 'non parlo con', 'non voglio parlare con'],
    me: ['mi'],
    reachOut: ['mandare una mail', 'mandare una email', 'mandare un email', 'mandare un messaggio', 'inviare una mail', 'inviare una email', 'scrivere', 'chiamare', 'richiamare', 'contattare', 'telefonare', 'mandare un sms', 'scrivere su whatsapp'],
    channel: ['via mail', 'per mail', 'per email', 'per telefono', 'al telefono', 'al numero', 'il mio numero è', 'domani', 'oggi', 'più tardi', 'direttamente'],
    topic: ['per', 'riguardo', 'riguardo a', 'riguardo al', 'a proposito di', 'circa', 'in merito a', 'in merito al', 'quando', 'appena'],
    asksHow: ['come', 'quando', 'dove', 'a che ora', 'fino a che ora'],
    asksWhat: ['cosa', 'che cosa', 'quale', 'quali', 'chi', 'quanti', 'quante', 'quanto'],
    contrast: ['ma', 'però', 'pero', 'purtroppo', 'tuttavia', 'peccato che', 'anche se'],
    asksWhether: ['sto parlando con', 'sto chattando con', 'sto scrivendo con'],
    fromTeam: ['del', 'della', 'dello', 'dal', 'dalla', 'del vostro', 'della vostra', 'dal vostro', 'dalla vostra'],
    met: ['ho parlato con', 'ho già parlato con', 'ho sentito'],
  },
  nl: {
    condition: ['als', 'indien', 'alleen als', 'alleen indien'],
    nobody: ['niemand'],
    greeting: ['hoi', 'hallo', 'hey', 'goedemorgen', 'goedemiddag', 'goedenavond', 'dag', 'goededag', 'hallo allemaal', 'hoi hoi', 'hee', 'hai', 'hallootjes', 'hallo daar', 'alles goed'],
    thanks: ['dank je', 'dank je wel', 'dankjewel', 'dank u', 'dank u wel', 'dankuwel', 'bedankt', 'hartelijk dank', 'heel erg bedankt', 'erg bedankt', 'top bedankt', 'dankje', 'dank', 'dank jullie', 'super bedankt', 'bedankt voor de hulp', 'dankjewel voor de hulp', 'bedankt hè'],
    goodbye: ['doei', 'doeg', 'tot ziens', 'tot straks', 'tot later', 'fijne dag', 'fijne dag nog', 'een fijne dag', 'houdoe', 'dag dag', 'doeidoei', 'fijn weekend', 'tot de volgende keer', 'nee dank je', 'nee bedankt', 'dat was het', 'fijne avond', 'nog een fijne dag', 'tot zo', 'dat was alles', 'dat is alles', 'verder niks', 'verder niets', 'nog een fijne avond', 'een fijn weekend'],
    acknowledgement: ['oké', 'prima', 'helder', 'duidelijk', 'begrepen', 'goed', 'perfect', 'in orde', 'akkoord', 'ik snap het', 'snap het', 'ah oké', 'fijn', 'geweldig', 'klopt', 'komt goed', 'is goed', 'dat is goed', 'heel goed', 'oké dan', 'ok dan', 'okido', 'okidoki', 'gelukt', 'super', 'mooi zo', 'dat is duidelijk', 'dat is helder', 'super service', 'top service', 'topservice', 'goede service', 'geweldige service', 'prima service', 'toppie', 'echt super', 'super geholpen', 'goed geholpen', 'fijn geholpen', 'heel fijne service', 'wat een snelle service', 'snelle service', 'wat een service', 'opgelost', 'het werkt', 'werkt weer', 'het werkt weer', 'wat een fijne webshop', 'fijne webshop', 'altijd snel geleverd', 'snel geleverd', 'leuk', 'leuke webshop', 'leuke winkel', 'toffe webshop', 'mooie webshop', 'goeie service'],
    praise: ['complimenten', 'petje af', 'top', 'toppers', 'jullie zijn toppers', 'ga zo door', 'vijf sterren', '5 sterren', 'echt een aanrader', 'een aanrader', 'aanrader', 'chapeau', 'de beste', 'echt de beste', 'jullie zijn de beste', 'de leukste webshop', 'leukste webshop', 'de leukste winkel', 'de beste webshop', 'beste webshop', 'de beste winkel', 'jullie zijn geweldig', 'geweldig', 'ik ben fan', 'fan van jullie', 'top winkel', 'topwinkel'],
    // Not "mooi": folded like the wordings ("mooi" → "moi") it would read Finnish "moi" (hi) as "ok".
    smallTalkFillers: ['wel', 'voor de hulp', 'voor je hulp', 'voor uw hulp', 'voor de info', 'nog', 'nogmaals', 'en', 'dan', 'oh', 'ah', 'heel erg', 'erg', 'jullie', 'allemaal', 'hoor', 'alvast', 'voor je antwoord', 'voor uw antwoord', 'voor het antwoord', 'voor de snelle reactie', 'voor jullie hulp', 'nee', 'ja', 'verder', 'helemaal', 'echt', 'heel', 'jullie zijn', 'je hebt me', 'u heeft me', 'geholpen', 'echt goed', 'zo', 'zeg', 'webshop', 'winkel', 'site', 'website', 'trouwens', 'een', 'producten'],
    person: ['medewerker*', 'mens', 'een mens', 'echt persoon', 'echte persoon', 'persoon', 'klantenservice', 'agent', 'operator', 'iemand echt', 'iemand echts', 'echte mensen', 'adviseur*', 'collega', 'een medewerker', 'een echt mens', 'echt mens', 'een echte persoon', 'een persoon', 'menselijke medewerker', 'klantenservice medewerker', 'klantendienst', 'servicedesk', 'helpdesk', 'iemand van de klantenservice', 'manager', 'leidinggevende*', 'teamleider*', 'chef', 'supervisor', 'afdeling', 'retourafdeling', 'klachtenafdeling', 'eigenaar', 'verantwoordelijke', 'afdeling retouren', 'boekhouding', 'leidinggevende', 'iemand die er iets aan kan doen', 'contactpersoon', 'aanspreekpunt', 'menselijk contact', 'zakelijk', 'financiële administratie', 'financiele administratie', 'iemand hoger', 'iemand hogerop', 'servicemedewerker*', 'klantenservicemedewerker*', 'accountmanager', 'mederwerker', 'medewerkr', 'naar retouren', 'de retourafdeling', 'iemand van zakelijke verkoop', 'iemand van verkoop', 'iemand van de verkoop', 'zakelijke verkoop', 'stylist', 'stylisten', 'een van jullie stylisten', 'verkoper', 'een verkoper', 'verkoopster'],
    someone: ['iemand', 'support', 'de support', 'jullie team', 'een collega', 'een collega van je', 'iemand van het team', 'iemand van jullie team', 'iemand van jullie'],
    contact: ['spreken', 'praten', 'chatten', 'doorverbinden', 'verbind me', 'verbind mij', 'verbinden', 'doorschakelen', 'doorverbonden', 'verbinden met', 'doorzetten', 'doorgezet', 'doorgeschakeld', 'in contact komen', 'contact opnemen met', 'aan de lijn krijgen', 'te spreken krijgen', 'spreken met', 'praten met', 'chatten met', 'aan de telefoon krijgen', 'aan de telefoon', 'aan de lijn', 'klacht indienen bij', 'contact met me', 'contact met mij', 'dit overnemen', 'gesprek over te nemen', 'het gesprek overnemen', 'overgenomen', 'zet me door', 'zet me door naar', 'zet mij door', 'verbind me door', 'bespreek', 'bespreken', 'oppakt', 'dit oppakt', 'oppakken', 'afhandelen', 'telefonisch afhandelen', 'overleggen', 'een gesprek met', 'gesprek met', 'dat dit naar', 'dat het naar', 'dit doorzetten naar', 'af te handelen', 'telefonisch af te handelen', 'doornemen', 'door te nemen', 'doorspreken', 'in contact met', 'kom ik in contact met', 'kom ik in contact', 'in contact brengen met', 'mij in contact brengen', 'me in contact brengen'],
    contactAfter: true,
    articles: true,
    want: ['ik wil', 'ik zou graag', 'ik wil graag', 'ik heb nodig', 'mag ik', 'kan ik', 'graag', 'ik zou willen', 'ik heb', 'ik wil liever', 'liever', 'geef me', 'geef mij', 'geef me maar', 'geef mij maar'],
    please: ['alsjeblieft', 'alstublieft', 'aub', 'graag', 'nu', 'svp', 'pls', 'nodig', 'a u b', 'nu meteen', 'even', 'die me kan helpen', 'die mij kan helpen', 'of alleen bots', 'die echt kan helpen', 'die kan helpen', 'die me echt kan helpen', 'indien mogelijk', 'als het kan', 'als dat kan', 'op dit moment', 'meteen', 'om mij te woord te staan', 'om me te woord te staan', 'om mij te helpen', 'om me te helpen', 'zo snel mogelijk', 'zsm', 'zo spoedig mogelijk'],
    personFillers: ['een', 'met', 'de', 'het', 'echte', 'echt', 'aan de lijn', 'aan de telefoon', 'hier', 'daar', 'maar', 'in de chat', 'nou', 'gewoon', 'even', 'van de winkel', 'van de webshop', 'van de zaak', 'achter', 'hier achter', 'ook', 'van vlees en bloed'],
    notPerson: ['persoon die', 'mensen die'],
    negation: ['niet', 'geen', 'nooit', 'zonder'],
    contactFollowing: ['met wie ik kan praten', 'met wie ik kan spreken', 'die ik kan spreken', 'waarmee ik kan praten'],
    askFor: ['mag ik', 'kan ik', 'kunt u', 'kun je', 'kunnen jullie', 'zou', 'kunnen', 'kan', 'zou u'],
    exists: ['is er', 'zijn er', 'hebben jullie', 'heeft u', 'is daar', 'zit daar', 'zit er'],
    available: ['beschikbaar', 'bereikbaar', 'online', 'aanwezig', 'vrij'],
    callback: ['terugbellen', 'bel me', 'bel mij', 'bel me terug', 'bel mij terug', 'mij bellen', 'me bellen', 'teruggebeld', 'mij terugbellen', 'me terugbellen', 'contact met mij', 'contact met me', 'mij contacteren', 'terugbelverzoek', 'mail me', 'mail mij', 'stuur me een mail', 'stuur mij een mail', 'stuur me een sms', 'app me', 'sms me', 'escaleren', 'graag escaleren', 'escaleer dit', 'escalatie', 'escaleer', 'bel me even', 'stuur me een appje', 'stuur mij een mailtje', 'stuur me een mailtje', 'app me even', 'mij opbellen', 'me opbellen', 'mij terugmailen', 'me terugmailen', 'mij mailen', 'me mailen', 'doorverbonden worden', 'doorverbonden te worden', 'me belt', 'mij belt', 'geëscaleerd', 'geëscaleerd worden', 'escaleren naar', 'me callen', 'mij callen', 'me ff callen', 'me ff bellen', 'hem bellen', 'haar bellen', 'hem opbellen', 'haar opbellen', 'hogerop', 'hogerop wordt opgepakt', 'hogerop opgepakt', 'telefonisch afhandelen', 'bel me ff terug', 'bel me even terug', 'bel mij even terug', 'hoger in de organisatie', 'hoger in de organisatie wordt opgepakt', 'hoger op de ladder', 'contact met ons opnemen', 'ons bellen', 'bel ons', 'belletje terug', 'een belletje terug', 'een belletje', 'terugbelletje', 'haar terugbellen', 'hem terugbellen'],
    machine: ['bot', 'robot', 'chatbot', 'computer', 'de bot', 'de robot', 'een bot'],
    alternative: ['of'],
    stop: ['stop', 'genoeg', 'klaar met', 'kap met', 'weg met', 'geen zin in', 'heb geen zin in', 'ik heb geen zin in', 'geen zin meer in', 'praat niet met', 'ik praat niet met', 'chat niet met'],
    me: ['me', 'mij'],
    reachOut: ['mailen', 'e-mailen', 'emailen', 'bellen', 'terugbellen', 'schrijven', 'contacteren', 'een mail sturen', 'een mailtje sturen', 'een berichtje sturen', 'appen', 'sms sturen', 'een sms sturen', 'opbellen', 'terugmailen', 'sms\'en', 'smsen', 'belt', 'terugbelt', 'mailt', 'appt', 'kom ik bij', 'terecht kom'],
    channel: ['per mail', 'via de mail', 'telefonisch', 'per telefoon', 'op', 'op nummer', 'mijn nummer is', 'vandaag', 'vandaag nog', 'morgen', 'straks', 'ff', 'even', 'terug', 'vanavond', 'vanmiddag', 'morgenochtend', 'morgenmiddag', 'na'],
    topic: ['over', 'betreffende', 'omtrent', 'inzake', 'vanwege', 'ivm', 'in verband met', 'wanneer', 'zodra', 'als'],
    asksHow: ['hoe', 'wanneer', 'hoe laat', 'tot hoe laat'],
    asksWhat: ['wat', 'welk', 'welke', 'wie', 'waarom', 'hoeveel'],
    contrast: ['maar', 'helaas', 'echter', 'alleen jammer', 'jammer genoeg', 'wel jammer'],
    asksWhether: ['ben ik nu met', 'ben ik met', 'ben ik hier met', 'praat ik met', 'praat ik nu met', 'chat ik met', 'chat ik nu met', 'spreek ik met', 'spreek ik nu met'],
    fromTeam: ['van', 'van de', 'van het', 'van jullie', 'van uw', 'bij de', 'op de'],
    met: ['ik heb met', 'ik sprak met', 'ik heb al met', 'sprak met'],
  },
  pt: {
    condition: ['se', 'só se', 'somente se', 'apenas se'],
    nobody: ['ninguém', 'ninguem'],
    greeting: ['olá', 'ola', 'oi', 'oii', 'bom dia', 'boa tarde', 'boa noite', 'e aí', 'eai', 'tudo bem', 'oi tudo bem', 'olá tudo bem', 'saudações'],
    thanks: ['obrigado', 'obrigada', 'muito obrigado', 'muito obrigada', 'obg', 'brigado', 'brigada', 'valeu', 'agradeço', 'obrigadão', 'obrigadao', 'grato', 'grata', 'obrigado pela atenção', 'obrigada pela atenção', 'agradecido', 'agradecida', 'valeu mesmo', 'vlw', 'brigadão', 'muito grato', 'muito grata', 'vlw mesmo'],
    goodbye: ['tchau', 'até logo', 'até mais', 'até breve', 'adeus', 'tenha um bom dia', 'bom dia para você', 'até amanhã', 'falou', 'xau', 'fui', 'não obrigado', 'não obrigada', 'nao obrigado', 'é só isso', 'só isso', 'tchauzinho', 'até a próxima', 'bom fim de semana', 'boa semana', 'tenha um ótimo dia', 'era só isso', 'é isso', 'só isso mesmo', 'tenha uma ótima noite', 'tenha uma boa noite', 'tenha uma boa tarde'],
    acknowledgement: ['beleza', 'certo', 'entendi', 'entendido', 'perfeito', 'ótimo', 'otimo', 'combinado', 'tá bom', 'ta bom', 'tá', 'blz', 'show', 'legal', 'maravilha', 'tranquilo', 'joia', 'de acordo', 'pode ser', 'compreendi', 'muito bem', 'tá ótimo', 'ta otimo', 'tá certo', 'ta certo', 'ok entendi', 'show de bola', 'massa', 'certinho', 'tudo certo', 'de boa', 'fechado', 'entendi tudo', 'tudo entendido', 'atendimento nota 10', 'ótimo atendimento', 'excelente atendimento', 'atendimento top', 'serviço excelente', 'demais', 'vocês são demais', 'vocês são top', 'adorei o atendimento', 'ajudou demais', 'fixe', 'foi ótima', 'foi ótimo', 'adoro a loja', 'adoro a loja de vocês', 'adoro a loja de voces', 'amo a loja', 'amei a loja', 'otimo atendimento', 'adoro vocês', 'resolveu', 'resolvido', 'resolveu aqui', 'funcionou', 'deu certo', 'amo essa loja', 'adoro essa loja', 'loja top', 'voces sao demais', 'amei o atendimento', 'adorei', 'amei'],
    praise: ['parabéns', 'nota dez', 'nota 10', 'recomendo', 'super recomendo', 'top', 'cinco estrelas', '5 estrelas', 'continuem assim', 'adoro', 'adoro esta loja', 'adoro a loja', 'impecável', 'tudo impecável', 'amo essa loja', 'amo esta loja', 'amo a loja', 'amo vocês', 'a melhor loja', 'melhor loja', 'vocês são os melhores', 'vocês arrasam', 'arrasaram', 'só passei pra elogiar', 'passei pra elogiar', 'passei para elogiar'],
    smallTalkFillers: ['pela ajuda', 'por tudo', 'pela informação', 'a você', 'mesmo', 'de novo', 'e', 'então', 'ah', 'oh', 'muito', 'gente', 'pessoal', 'novamente', 'pela atenção', 'pela atencao', 'pela resposta', 'pelo retorno', 'pela rapidez', 'pelas informações', 'não', 'nao', 'sim', 'viu', 'tá', 'tudo', 'vocês são', 'você me ajudou', 'me ajudou', 'você foi', 'vc foi', 'vc', 'abraço', 'muito obrigada', 'ajudou muito', 'loja', 'essa loja', 'esta loja', 'a loja', 'site', 'o site', 'amo', 'adoro', 'produtos', 'de vcs', 'de vocês'],
    person: ['atendente*', 'pessoa', 'uma pessoa', 'pessoa real', 'humano', 'um humano', 'ser humano', 'agente*', 'operador*', 'consultor', 'consultora', 'representante*', 'funcionário*', 'funcionario*', 'suporte humano', 'atendimento humano', 'alguém real', 'gente de verdade', 'pessoa de verdade', 'atendimento pessoal', 'humano de verdade', 'um funcionário', 'um atendente', 'operadora', 'sac', 'central de atendimento', 'serviço de atendimento ao cliente', 'alguém de verdade', 'alguem de verdade', 'gerente', 'supervisor*', 'responsável', 'responsavel', 'chefe', 'setor de trocas', 'setor de devoluções', 'dono da loja', 'dona da loja', 'dono', 'alguém no telefone', 'colaborador', 'colaboradora', 'setor de cobrança', 'setor de cobranca', 'setor de devolucoes', 'setor financeiro', 'equipe de devoluções', 'equipe de devolucoes', 'supervisor', 'coordenador', 'coordenadora', 'supervisora', 'time de vendas', 'equipe de vendas', 'do financeiro', 'o financeiro', 'faturamento', 'do faturamento', 'alguém de carne e osso', 'alguem de carne e osso', 'gente de carne e osso', 'a dona da loja', 'o dono', 'moça da loja', 'moço da loja', 'uma moça da loja', 'alguém da loja', 'funcionária da loja', 'funcionário da loja', 'atendimento humanu', 'humanu', 'atendenti', 'pessoal de trocas', 'pessoal de devoluções', 'pessoal de devolucoes', 'pessoal das trocas', 'colaboradores', 'um dos vossos colaboradores', 'vendedor', 'um vendedor', 'técnico', 'um técnico', 'setor de reclamações', 'setor de reclamacoes', 'setor comercial', 'setor de atendimento', 'o comercial'],
    someone: ['alguém', 'alguem', 'suporte', 'o suporte', 'atendimento', 'o atendimento', 'alguém do suporte', 'alguém da equipe', 'sua equipe', 'um colega', 'uma colega', 'uma das suas colegas', 'um dos seus colegas', 'um membro da equipe', 'uma moça', 'um rapaz', 'uma moça ou um rapaz', 'moça ou um rapaz', 'gente', 'tem gente'],
    contact: ['falar', 'conversar', 'transferir', 'me transfere', 'me transfira', 'me passa', 'passar', 'me conecta', 'chamar', 'chama', 'atendido', 'atendida', 'ser atendido', 'ser atendida', 'me atenda', 'me atender', 'me atendam', 'me passe', 'me passar', 'me passa pra', 'me transferir', 'transfere', 'transferir para', 'conectar', 'me conecte', 'me coloca', 'me coloque', 'me encaminha', 'me encaminhe', 'encaminhar', 'falar com', 'assumir isso', 'assumir a conversa', 'assumir aqui', 'assumir o atendimento', 'me passem', 'passem pra', 'transfira me', 'transfira-me', 'tratar isso', 'tratar isso diretamente com', 'tratar com', 'seja tratado por', 'seja tratada por', 'tratado por', 'tratada por', 'fala cmg', 'falar cmg', 'fala comigo', 'falar comigo', 'tratar disso com', 'tratar isso com', 'falo com', 'falar c', 'ser encaminhada', 'ser encaminhado'],
    want: ['quero', 'queria', 'gostaria', 'preciso', 'posso ter', 'desejo', 'prefiro', 'preferia', 'quero que', 'queria que', 'gostaria que', 'preciso que'],
    please: ['por favor', 'pfv', 'pf', 'porfavor', 'agora', 'urgente', 'já', 'pfvr', 'que possa me ajudar', 'que me ajude', 'se possível', 'se possivel', 'se puder', 'se der', 'agora mesmo', 'neste momento', 'nesse momento', 'o quanto antes', 'o mais rápido possível', 'o mais rapido possivel', 'assim que possível', 'assim que possivel', 'o mais breve possível'],
    personFillers: ['um', 'uma', 'com', 'o', 'a', 'de verdade', 'real', 'ao', 'algum', 'alguma', 'aí', 'ai', 'aqui', 'mas', 'sim', 'no chat', 'por telefone', 'humano', 'pra', 'para', 'por', 'pro', 'acima de você', 'acima de voce', 'da loja', 'tá', 'ta'],
    notPerson: ['pessoa que', 'pessoas'],
    articles: true,
    negation: ['não', 'nao', 'nunca', 'sem'],
    contactFollowing: ['com quem falar', 'com quem eu possa falar', 'com quem posso falar', 'com quem eu posso falar'],
    askFor: ['pode me passar', 'pode chamar', 'me arruma', 'posso ter', 'podem', 'pode', 'poderia', 'poderiam', 'vocês podem', 'você pode', 'tem como', 'teria como', 'há como', 'vcs podem', 'vc pode', 'voces podem', 'voce pode'],
    exists: ['tem', 'há', 'ha', 'existe', 'vocês têm', 'voces tem'],
    available: ['disponível', 'disponivel', 'online', 'aí'],
    callback: ['me ligar', 'me liga', 'me ligue', 'me liguem', 'me ligarem', 'retornar a ligação', 'me retornar', 'me retorna', 'me contatar', 'me contate', 'me contatem', 'entrar em contato comigo', 'entre em contato comigo', 'uma ligação', 'me ligar de volta', 'me liga de volta', 'me ligue de volta', 'me liguem de volta', 'ligar de volta', 'me manda um email', 'me mande um email', 'me mandem um email', 'me escreve', 'me escreva', 'me escrevam', 'me manda sms', 'me mandem sms', 'me manda mensagem', 'me mandem mensagem', 'escalar isso', 'escalem isso', 'escalonar', 'escalem', 'escalassem', 'escalar meu caso', 'escala isso', 'liguem-me', 'ligue-me', 'me chama no zap', 'me chama no whatsapp', 'me manda um whatsapp', 'me manda mensagem no zap', 'me manda uma mensagem', 'me mande uma mensagem', 'me mandem uma mensagem', 'manda uma mensagem', 'me telefonar', 'me telefone', 'me telefonem', 'entra em contato comigo', 'entrem em contato comigo', 'ser contatado', 'ser contatada', 'ser contactado', 'ser contactada', 'ser transferido', 'ser transferida', 'me chama no whats', 'manda msg', 'me manda msg', 'manda msg no meu zap', 'me manda um zap', 'manda um zap', 'me manda zap', 'ligar pra ela', 'ligar pra ele', 'ligar para ela', 'ligar para ele', 'escalar essa reclamação', 'escalar minha reclamação', 'escalar esse caso', 'me ligassem', 'me ligasse', 'me ligassem de volta', 'me atendesse por telefone', 'me chamar no whats', 'me chamar no zap', 'mandar uma mensagem no zap', 'alguém me ligar', 'alguem me ligar', 'me retornarem', 'me retornarem a ligação', 'retornarem a ligação', 'seja escalado', 'seja escalada', 'me manda um whats', 'me mande um whats', 'escalona isso', 'escalonar isso', 'escalona', 'me chamem no whats', 'me chamem no zap', 'me telefonasse', 'me contactasse', 'me contatasse', 'entrasse em contato comigo', 'entrassem em contato comigo', 'entrar em contato cmg', 'me contactassem', 'me contactem', 'me contatassem', 'pode entrar em contato', 'podem entrar em contato', 'pode entrar em contacto', 'podem entrar em contacto', 'lhe pode telefonar', 'lhe telefonar', 'telefonar-lhe', 'lhe ligar', 'ligar-lhe', 'entre em contato', 'entrem em contato', 'entre em contacto', 'entrem em contacto'],
    machine: ['robô', 'robo', 'o robô', 'esse robô', 'bot', 'chatbot', 'máquina', 'maquina', 'ia', 'atendimento automático'],
    alternative: ['ou'],
    stop: ['para com', 'pare com', 'chega de', 'chega', 'stop', 'cansei de', 'cansei do', 'não aguento mais', 'não falo com', 'nao falo com', 'não converso com', 'não quero conversar com', 'nao quero conversar com'],
    me: ['me', 'comigo', 'cmg'],
    reachOut: ['mandar um email', 'mandar um e-mail', 'mandar email', 'enviar um email', 'enviar um e-mail', 'escrever', 'ligar', 'retornar', 'contatar', 'mandar mensagem', 'mandar uma mensagem', 'mandar sms', 'mandar um sms', 'mandar whatsapp', 'telefonar', 'entrar em contato', 'entre em contato', 'entrasse em contato', 'entrassem em contato', 'entrem em contato', 'entra em contato'],
    channel: ['por email', 'por e-mail', 'por telefone', 'pelo whatsapp', 'no whatsapp', 'no número', 'meu número é', 'meu numero', 'amanhã', 'hoje', 'mais tarde', 'no meu zap', 'no zap', 'no meu whatsapp', 'hoje à tarde', 'hoje a tarde', 'amanhã de manhã'],
    topic: ['sobre', 'a respeito de', 'referente a', 'referente ao', 'pra', 'para', 'por causa de', 'por causa da', 'por causa do', 'quando', 'assim que'],
    asksHow: ['como', 'quando', 'onde', 'que horas', 'a que horas', 'até que horas'],
    asksWhat: ['o que', 'qual', 'quais', 'quem', 'por que', 'quantos', 'quantas', 'quanto'],
    contrast: ['mas', 'porém', 'porem', 'infelizmente', 'contudo', 'só que', 'so que', 'pena que'],
    asksWhether: ['estou falando com', 'to falando com', 'tô falando com', 'estou conversando com', 'to conversando com'],
    fromTeam: ['do', 'da', 'do seu', 'da sua', 'do vosso', 'da vossa'],
    met: ['falei com', 'já falei com', 'conversei com', 'já conversei com'],
  },
  pl: {
    condition: ['jeśli', 'jesli', 'jeżeli', 'jezeli', 'gdyby', 'tylko jeśli', 'tylko jesli', 'tylko jeżeli', 'tylko gdy'],
    nobody: ['nikt'],
    greeting: ['cześć', 'czesc', 'dzień dobry', 'dzien dobry', 'witam', 'witaj', 'hej', 'siema', 'dobry wieczór', 'halo', 'witam serdecznie', 'elo', 'hejka', 'hejo', 'siemka', 'siemano', 'witajcie', 'co tam', 'hej co tam', 'siema co tam'],
    thanks: ['dziękuję', 'dziekuje', 'dzięki', 'dzieki', 'dziękuję bardzo', 'bardzo dziękuję', 'dziękuje', 'dzięks', 'dziekuwa', 'serdecznie dziękuję', 'wielkie dzięki', 'dzieks', 'dziękujemy', 'dzięki za info', 'dzieki za info', 'dzięki wielkie', 'dziękuję ślicznie', 'dziekuje slicznie', 'dziena', 'dzk', 'chciałam tylko podziękować', 'chciałem tylko podziękować', 'chciałam podziękować', 'chciałem podziękować'],
    goodbye: ['do widzenia', 'na razie', 'do zobaczenia', 'pa', 'pa pa', 'papa', 'miłego dnia', 'milego dnia', 'żegnam', 'zegnam', 'trzymaj się', 'dobranoc', 'nie dziękuję', 'nie dzięki', 'to wszystko', 'cześć', 'do usłyszenia', 'do uslyszenia', 'miłego wieczoru', 'to by było na tyle', 'nic więcej', 'pozdrawiam', 'nara', 'pozdro', 'wesołych świąt', 'życzę wesołych świąt', 'życzę miłego dnia'],
    acknowledgement: ['jasne', 'rozumiem', 'dobrze', 'okej', 'w porządku', 'w porzadku', 'spoko', 'świetnie', 'swietnie', 'zrozumiałem', 'zrozumiałam', 'idealnie', 'git', 'zgoda', 'doskonale', 'pięknie', 'ok', 'oki', 'spoko dzięki', 'jasna sprawa', 'dobra', 'no dobra', 'wszystko jasne', 'ekstra', 'okejka', 'świetna obsługa', 'super obsługa', 'dobra obsługa', 'obsługa na medal', 'rewelacja', 'jesteście super', 'świetny sklep', 'gratuluję obsługi', 'ekspresowo', 'oki doki', 'okej doki', 'już działa', 'juz dziala', 'załatwione', 'zalatwione', 'rozwiązane', 'rozwiazane', 'swietny sklep', 'zawsze szybka wysyłka', 'zawsze szybka wysylka', 'szybka wysyłka', 'szybka wysylka', 'super sklep', 'fajny sklep', 'godny polecenia'],
    praise: ['brawo', 'gratulacje', 'polecam', 'gorąco polecam', 'polecam serdecznie', 'pięć gwiazdek', '5 gwiazdek', 'tak trzymać', 'super', 'szacun', 'najlepsi', 'jesteście najlepsi', 'cudowny', 'cudowna', 'jest cudowny', 'zachwycony', 'zachwycona', 'pies zachwycony', 'najlepszy sklep', 'najlepszy sklep ever', 'sztos', 'sztos obsługa', 'jesteście super', 'jesteście świetni', 'uwielbiam ten sklep', 'uwielbiam was', 'kocham ten sklep', 'rewelacja', 'petarda'],
    smallTalkFillers: ['bardzo', 'za pomoc', 'za informację', 'za wszystko', 'serdecznie', 'jeszcze raz', 'i', 'no', 'to', 'wielkie', 'ok', 'za info', 'za informacje', 'za odpowiedź', 'za odpowiedz', 'za szybką odpowiedź', 'wam', 'ci', 'pani', 'panu', 'nie', 'tak', 'super', 'wszystkim', 'wszystkich', 'jesteście', 'pozdro', 'sklep', 'sklepik', 'strona', 'produkty', 'za miłą obsługę', 'za miła obsługę'],
    // Not "bok" (biuro obsługi klienta): repeated letters folded, English "book" is "bok".
    person: ['konsultant*', 'człowiek*', 'czlowiek*', 'osoba', 'osobą', 'osobę', 'pracownik*', 'operator*', 'doradc*', 'agent', 'agenta', 'agentem', 'obsług* klienta', 'obslug* klienta', 'prawdziw* osob*', 'żywym człowiekiem', 'zywym czlowiekiem', 'konsultantk*', 'prawdziwa osoba', 'prawdziwą osobą', 'prawdziwej osoby', 'żywy człowiek', 'żywego człowieka', 'biuro obsługi klienta', 'osob* z obsługi', 'ktoś prawdziwy', 'ktos prawdziwy', 'kogoś prawdziwego', 'żywa osoba', 'kierownik*', 'kierowniczk*', 'przełożon*', 'przelozon*', 'menedżer*', 'menedzer*', 'dział reklamacji', 'dział zwrotów', 'dzial reklamacji', 'dzial zwrotow', 'właściciel*', 'wlasciciel*', 'szef', 'szefa', 'kogoś na telefonie', 'kogos na telefonie', 'kogoś odpowiedzialnego', 'kogos odpowiedzialnego', 'dziale zwrotów', 'działu zwrotów', 'działem zwrotów', 'dziale zwrotow', 'dzialu zwrotow', 'dzialem zwrotow', 'działu reklamacji', 'działem reklamacji', 'dzialu reklamacji', 'dzialem reklamacji', 'księgowość', 'księgowości', 'ksiegowosc', 'ksiegowosci', 'działu księgowości', 'dzialu ksiegowosci', 'szefem', 'szefem zmiany', 'działu sprzedaży', 'dzialu sprzedazy', 'działu rozliczeń', 'dzialu rozliczen', 'ktoś żywy', 'ktos zywy', 'kogoś żywego', 'kogos zywego', 'dział płatności', 'działu płatności', 'dzial platnosci', 'dzialu platnosci', 'działu technicznego', 'dział techniczny', 'dzialu technicznego', 'serwisant', 'jakiś serwisant', 'ktoś na żywo', 'kogoś na żywo', 'ktoś z obsługi', 'kogoś z obsługi', 'ktoś z obsługi klienta', 'kogoś z obsługi klienta'],
    someone: ['kimś', 'kims', 'ktoś', 'ktos', 'kogoś', 'kogos', 'wsparcie', 'wsparciem', 'supportem', 'support', 'kolega', 'koleżanka', 'ktoś z pani kolegów', 'ktoś z zespołu', 'pani ze sklepu', 'pan ze sklepu', 'ktoś ze sklepu', 'jakaś pani', 'jakaś miła pani', 'miła pani', 'jakiś pan', 'kogos normalnego', 'kogoś normalnego'],
    contact: ['rozmawiać', 'rozmawiac', 'porozmawiać', 'porozmawiac', 'pogadać', 'pogadac', 'połączyć', 'polaczyc', 'połącz', 'polacz', 'przełączyć', 'przelaczyc', 'przełącz', 'przelacz', 'przełączcie', 'przekieruj', 'przekierujcie', 'przekierować', 'daj', 'daj mi', 'dajcie', 'dajcie mi', 'rozmowa z', 'rozmowę z', 'rozmowy z', 'o kontakt z', 'prosić o kontakt', 'porozmawiam', 'pogadam', 'połączcie', 'połączyć mnie', 'połącz mnie', 'pisać z', 'gadać z', 'gadac z', 'pogadać z', 'pogadac z', 'gadać', 'gadac', 'połączony z', 'polaczony z', 'połączona z', 'polaczona z', 'połączenie z', 'polaczenie z', 'przekazać to wyżej', 'przekazac to wyzej', 'przekażcie to wyżej', 'przekazcie to wyzej', 'przekażcie wyżej', 'przekazać wyżej', 'przekazać sprawę wyżej', 'to przejąć', 'to przejac', 'przejąć rozmowę', 'przejac rozmowe', 'przejąć sprawę', 'przejac sprawe', 'przełączysz', 'przelaczysz', 'przekierował', 'przekierowal', 'przekieruje', 'przekaż rozmowę', 'przekaz rozmowe', 'przekazać moją sprawę', 'przekazac moja sprawe', 'przekazać sprawę', 'przekazac sprawe', 'omówić', 'omowic', 'omówić z', 'rozmowy telefonicznej z', 'się tym zajmie', 'zajmie się tym', 'zajął się tym', 'zajęła się tym', 'zajmie się moją sprawą', 'przekierowany do', 'przekierowana do', 'zostać przekierowany', 'zostac przekierowany', 'porozmawiania', 'porozmawiania z', 'przekierowanie do', 'o przekierowanie do', 'złapać', 'zlapac'],
    want: ['chcę', 'chce', 'chciałbym', 'chcialbym', 'chciałabym', 'chcialabym', 'potrzebuję', 'potrzebuje', 'poproszę', 'poprosze', 'proszę o', 'wolę', 'wolałbym', 'wolałabym', 'prosze o', 'dawaj', 'dawajcie', 'dajcie'],
    please: ['proszę', 'prosze', 'pls', 'teraz', 'pilne', 'do pomocy', 'jeśli można', 'jesli mozna', 'jeśli to możliwe', 'jesli to mozliwe', 'jeżeli to możliwe', 'jezeli to mozliwe', 'w tej chwili', 'od razu', 'jak najszybciej', 'jak najszybciej to możliwe', 'jak najszybciej to mozliwe', 'jak najpredzej'],
    personFillers: ['z', 'ze', 'prawdziwym', 'prawdziwą', 'z prawdziwym', 'żywym', 'zywym', 'jakiś', 'jakis', 'jakaś', 'jakas', 'jakiegoś', 'tu', 'tutaj', 'na', 'ale', 'tylko', 'do', 'ze sklepu', 'sklepu', 'z obsługi', 'na czacie', 'przez telefon', 'teraz', 'prawdziwy', 'prawdziwa', 'prawdziwego', 'żywy', 'zywy', 'miła', 'miły', 'mila', 'mily', 'tam'],
    notPerson: ['osoby', 'osób', 'ludzie'],
    contactAfter: true,
    negation: ['nie', 'bez', 'nie chcę', 'nie chce'],
    contactFollowing: ['z kim porozmawiać', 'z kim mogę porozmawiać', 'z kim mogę rozmawiać', 'z którym mogę porozmawiać', 'z ktorym moge porozmawiac', 'z którym można porozmawiać'],
    askFor: ['czy mogę', 'czy moge', 'mogę', 'moge', 'można', 'mozna', 'może', 'mógłby', 'mogłaby', 'mogliby', 'czy może', 'czy mógłby', 'czy mogłaby', 'czy mogą', 'możecie', 'mozecie', 'czy możecie', 'czy mozecie', 'możesz', 'mozesz', 'czy byłaby możliwość', 'czy byłaby mozliwosc', 'czy jest możliwość', 'czy jest mozliwosc'],
    exists: ['czy jest', 'jest', 'czy są', 'są', 'macie', 'czy macie', 'jest dostępny', 'czy jest dostępny', 'jest dostępna', 'jest wolny', 'czy jest wolny'],
    available: ['dostępny', 'dostepny', 'dostępna', 'dostępni', 'online', 'wolny'],
    callback: ['oddzwoni*', 'oddzwoń*', 'zadzwoń do mnie', 'zadzwońcie do mnie', 'zadzwoni do mnie', 'zadzwonić do mnie', 'skontaktuje się ze mną', 'skontaktować się ze mną', 'skontaktujcie się ze mną', 'kontakt telefoniczny', 'o telefon', 'o kontakt', 'o kontakt telefoniczny', 'o oddzwonienie', 'proszę o telefon', 'prosze o telefon', 'poproszę o telefon', 'poprosze o telefon', 'proszę o kontakt', 'prosze o kontakt', 'proszę o oddzwonienie', 'prosze o oddzwonienie', 'eskalować', 'eskalowac', 'eskalujcie', 'to eskalować', 'zadzwońcie', 'zadzwoń', 'napiszcie do mnie', 'napiszcie mi', 'wyślijcie mi sms', 'wyślijcie smsa', 'się ze mną skontaktuje', 'sie ze mna skontaktuje', 'skontaktował się ze mną', 'skontaktowal sie ze mna', 'skontaktowała się ze mną', 'dostać maila', 'dostac maila', 'o eskalację', 'o eskalacje', 'eskalację', 'eskalacje', 'możecie zadzwonić', 'mozecie zadzwonic', 'możecie napisać', 'mozecie napisac', 'zostać połączony', 'zostac polaczony', 'zostać połączona', 'zostac polaczona', 'proszę o sms', 'prosze o sms', 'oddzwonić', 'oddzwonic', 'to eskalowac i oddzwonic', 'eskalować i oddzwonić', 'do mnie zadzwonić', 'do mnie zadzwonic', 'wyślijcie sms', 'wyslijcie sms', 'ze mną skontaktuje', 'wyslac mi smsa', 'wysłać mi smsa', 'wysłać mi sms', 'wyslac mi sms', 'odezwie się do mnie', 'odezwie sie do mnie', 'odezwał się do mnie', 'się ze mną skontaktował', 'sie ze mna skontaktowal', 'się ze mną skontaktowała', 'sie ze mna skontaktowala', 'o smsa', 'proszę o smsa', 'prosze o smsa', 'napisać do mnie', 'do mnie napisać', 'ktoś się odezwać', 'ktos sie odezwac', 'odezwać się', 'odezwie się', 'się odezwie', 'niech ktoś się odezwie', 'do niej zadzwonić', 'do niej zadzwonic', 'zadzwonić do niej', 'zadzwonic do niej', 'do niego zadzwonić', 'do niego zadzwonic', 'zadzwonić do niego', 'zadzwonic do niego'],
    machine: ['bot', 'bota', 'botem', 'botowi', 'boty', 'botów', 'robot', 'robota', 'robotem', 'chatbot', 'chatbota', 'chatbotem', 'maszyna', 'maszyną', 'automat', 'automatem', 'sztuczna inteligencja', 'sztuczną inteligencją'],
    alternative: ['czy', 'albo'],
    stop: ['dość', 'dosc', 'mam dość', 'koniec z', 'stop', 'nie chcę z', 'wyłącz', 'nie rozmawiam z', 'nie gadam z', 'nie piszę z', 'nie chcę gadać z', 'nie chce gadac z'],
    me: ['do mnie', 'mnie', 'mi', 'ze mną', 'ze mna', 'napiszcie', 'zadzwońcie', 'oddzwońcie'],
    reachOut: ['zadzwonić', 'zadzwonic', 'napisać', 'napisac', 'odpisać', 'odpisac', 'wysłać maila', 'wyslac maila', 'przesłać maila', 'oddzwonić', 'oddzwonic', 'skontaktować się', 'skontaktowac sie', 'skontaktować', 'skontaktowac', 'wysłać sms', 'wyslac sms', 'wyslac smsa', 'wysłać smsa', 'zadzwoni*', 'zadzwoń*', 'napisz*', 'odpisz*', 'odpisa*', 'wyślij*', 'wyślecie', 'skontaktował', 'skontaktowal', 'skontaktowała', 'skontaktowala', 'dostać się do', 'dostac sie do', 'dostać do', 'dostac do'],
    channel: ['maila', 'mailem', 'na maila', 'e-maila', 'e-mailem', 'telefonicznie', 'smsa', 'sms', 'na numer', 'mój numer', 'moj numer', 'nr', 'jutro', 'dzisiaj', 'dziś', 'mailowo', 'smsem', 'na whatsappie', 'na whatsapp', 'przez whatsapp', 'na whatsappa', 'przez whatsappa'],
    topic: ['w sprawie', 'odnośnie', 'co do', 'ws', 'dotyczącej', 'dotyczące', 'dotyczącym', 'bo', 'kiedy', 'gdy', 'jak tylko'],
    asksHow: ['jak', 'kiedy', 'gdzie', 'o której', 'do której'],
    asksWhat: ['co', 'jaki', 'jaka', 'jakie', 'jakiego', 'który', 'która', 'które', 'którego', 'kto', 'dlaczego', 'czemu', 'ile'],
    contrast: ['ale', 'jednak', 'niestety', 'tylko że', 'tylko ze', 'szkoda że', 'szkoda ze'],
    asksWhether: ['czy rozmawiam z', 'rozmawiam z', 'czy piszę z'],
    fromTeam: ['z', 'ze', 'z działu', 'z waszego', 'z waszej', 'z działu obsługi'],
    met: ['rozmawiałem z', 'rozmawiałam z', 'już rozmawiałem z', 'już rozmawiałam z'],
  },
  tr: {
    greeting: ['merhaba', 'merhabalar', 'selam', 'selamlar', 'günaydın', 'gunaydin', 'iyi günler', 'iyi gunler', 'iyi akşamlar', 'iyi aksamlar', 'selamün aleyküm', 'slm', 'mrb'],
    thanks: ['teşekkürler', 'tesekkurler', 'teşekkür ederim', 'tesekkur ederim', 'çok teşekkürler', 'çok teşekkür ederim', 'sağol', 'sağolun', 'sagol', 'sagolun', 'eyvallah', 'eyv', 'tşk', 'tsk', 'tşkler', 'tskler', 'teşekkürlerr', 'teşekkür', 'sağ ol', 'sağ olun', 'sag ol', 'sag olun', 'sağolasın', 'çok sağ ol', 'teşekkür ederiz', 'tşk ederim', 'tesekkur', 'teşekkürler efendim', 'mersi', 'ellerinize sağlık'],
    goodbye: ['hoşça kal', 'hoşçakal', 'hosca kal', 'hoşça kalın', 'görüşürüz', 'gorusuruz', 'güle güle', 'gule gule', 'iyi günler dilerim', 'kendine iyi bak', 'bay bay', 'iyi geceler', 'hayır teşekkürler', 'yok teşekkürler', 'bu kadar', 'hoşçakalın', 'görüşmek üzere', 'iyi çalışmalar', 'kolay gelsin', 'iyi akşamlar', 'başka bir şey yok'],
    acknowledgement: ['tamam', 'tamamdır', 'tamamdir', 'anladım', 'anladim', 'peki', 'olur', 'harika', 'süper', 'mükemmel', 'mukemmel', 'anlaşıldı', 'anlasildi', 'güzel', 'guzel', 'oldu', 'tmm', 'okey', 'çok güzel', 'ok', 'tabii', 'tabi', 'elbette', 'tmmdır'],
    smallTalkFillers: ['çok', 'cok', 'yardımınız için', 'yardiminiz icin', 'için', 'icin', 've', 'ederim', 'ederiz', 'size', 'sana', 'de', 'da', 'o zaman', 'hocam', 'abi', 'abla', 'efendim', 'size de', 'sana da', 'ilginiz için', 'bilgi için', 'hayır', 'evet', 'tamam', 'arkadaşlar', 'arkadaslar', 'herkese', 'millet'],
    person: ['müşteri temsilci*', 'musteri temsilci*', 'temsilci*', 'insan*', 'gerçek bir insan*', 'canlı destek*', 'canli destek*', 'canlı desteğ*', 'operatör*', 'operator*', 'yetkili*', 'çalışan*', 'calisan*', 'müşteri hizmetleri*', 'musteri hizmetleri*', 'gerçek kişi*', 'gercek kisi*', 'kişiyle', 'kişiye', 'kişi ile', 'bir kişi', 'canli desteg*', 'insanla', 'insana', 'gerçek insan*', 'personel*', 'gerçek biri', 'gercek biri'],
    someone: ['birisi*', 'birine', 'biriyle', 'birisiyle', 'birisine', 'biri ile', 'biri'],
    contact: ['görüşmek', 'gorusmek', 'konuşmak', 'konusmak', 'bağla*', 'bagla*', 'bağlanmak', 'aktar*', 'görüşebilir*', 'konuşabilir*', 'konusabilir*', 'gorusebilir*', 'yönlendir*', 'yonlendir*', 'ulaşmak', 'ulasmak', 'bağlayın', 'bağlar mısınız', 'baglanmak', 'bağlanabilir*', 'baglanabilir*', 'görüşeyim', 'konuşayım', 'baglar misiniz'],
    want: ['istiyorum', 'istiyoruz', 'lazım', 'lazim', 'rica ediyorum', 'isterim', 'gerek', 'rica ederim'],
    contactAfter: true,
    please: ['lütfen', 'lutfen', 'lutfn', 'acil', 'hemen', 'şimdi', 'misiniz', 'mısınız', 'musunuz', 'mi', 'mı', 'mu'],
    personFillers: ['bir', 'ile', 'gerçek', 'gercek', 'ile görüşmek', 'bi', 'biri', 'birisi', 'hemen', 'şimdi', 'ama', 'bana', 'bize'],
    notPerson: ['insanlar', 'insanlık', 'insanlik', 'biri mi', 'birinin', 'birini'],
    negation: ['değil', 'degil', 'istemiyorum', 'gerek yok', 'yok'],
    available: ['var mı', 'var mi', 'varmı', 'varmi', 'yok mu', 'müsait mi', 'musait mi', 'müsait', 'orada mı', 'burada mı', 'çevrimiçi mi', 'bağlanabilir mi'],
    callback: ['arasın', 'arasin', 'beni arayın', 'beni arayin', 'beni arasın', 'beni ara', 'beni arar mı', 'beni arayabilir*', 'geri arayın', 'geri arasın', 'geri dönüş', 'geri donus', 'aranmak istiyorum', 'dönüş yapsın', 'beni geri ara*', 'beni geri arayın', 'beni geri arasın', 'beni arar*'],
    machine: ['bot*', 'robot*', 'makine*', 'yapay zeka*', 'otomatik'],
    stop: ['değil', 'degil', 'istemiyorum', 'yeter', 'bıktım', 'biktim', 'dur'],
    me: ['bana', 'beni', 'benimle'],
    reachOut: ['mail at*', 'mail gönder*', 'mail gonder*', 'e-posta at*', 'e-posta gönder*', 'eposta at*', 'mesaj at*', 'yazabilir*', 'yazsın', 'yazsin', 'yazın', 'yazin', 'ulaşsın', 'ulassin', 'ulaşabilir*', 'ulasabilir*', 'dönüş yap*', 'donus yap*', 'iletişime geç*', 'iletisime gec*'],
    asksHow: ['nasıl', 'ne zaman', 'kaçta'],
    channel: ['numaram', 'numaramdan', 'numaradan', 'yarın', 'bugün'],
    asksWhat: ['ne', 'neden', 'niye', 'kim', 'kime', 'hangi', 'kaç'],
    contrast: ['ama', 'fakat', 'ancak', 'maalesef', 'ne yazık ki'],
  },
  ja: {
    greeting: ['こんにちは', 'こんにちわ', 'こんばんは', 'こんばんわ', 'おはよう', 'おはようございます', 'はじめまして', 'どうも', 'もしもし', 'やあ', 'おはよー', 'こんちゃ', 'ohayou', 'どもー', 'ども', 'どうもー', 'こんちは', 'こんちわ'],
    thanks: ['ありがとう', 'ありがとうございます', 'ありがとうございました', 'どうもありがとう', 'どうもありがとうございます', 'サンキュー', 'あざす', 'あざっす', '感謝します', '助かりました', '助かります', 'ありがと', 'よろしくお願いします', 'よろしくお願いいたします', 'よろしくです', 'お世話になりました', 'ありがとー', 'ありがとう！', 'サンクス', 'どうも', 'すごく助かりました', 'お疲れさまです', 'おおきに', 'arigatou', 'arigatou gozaimasu', 'arigatou gozaimashita', 'arigato', 'domo arigatou', 'doumo arigatou', 'お世話になってます', 'お世話になっております', 'いつもお世話になってます', 'いつもお世話になっております', 'お疲れ様です', 'お疲れ様'],
    goodbye: ['さようなら', 'さよなら', 'じゃあね', 'じゃあまた', 'またね', 'では失礼します', '失礼します', 'バイバイ', 'おやすみなさい', 'おやすみ', 'ではまた', 'また今度', '失礼いたします', 'それでは', 'またよろしくお願いします', '以上です', '良い一日を', 'よい一日を', 'ばいばい'],
    acknowledgement: ['了解', '了解です', '了解しました', 'わかりました', '分かりました', 'はい', 'はい分かりました', 'なるほど', '承知しました', 'かしこまりました', 'オッケー', 'いいですね', '大丈夫です', 'りょ', 'ok です', '理解しました', 'りょうかい', 'ok', 'okです', 'オッケーです', 'おっけー', '大丈夫', 'わかった', '分かった', 'はーい', 'そうですか', 'なるほどです', '承知いたしました', '助かります', '丁寧な対応', '対応が丁寧', '素晴らしい対応', '神対応', 'さすがです', 'おけ', '最高でした', '丁寧な対応でした', '対応すごく丁寧でした', '対応めっちゃ丁寧', '対応めっちゃ早くて最高でした', '(^^)', '(^^)/', '解決しました', '解決', '直りました', '解決です', 'いつも発送早くて助かってます', '発送早くて助かってます', '助かってます', 'おすすめです'],
    praise: ['感動しました', '最高です', '最高', 'リピートします', 'また買います', '応援してます', '応援しています', 'さいこう', 'さいこうです', '最高のお店', '素敵なお店', '楽しいです', '可愛いお店', 'めっちゃ可愛い', 'かわいいお店', '楽しく買い物させてもらってます', '楽しく買い物', '神', 'ほんと神', '神対応', '好き', '大好き', '大切に使います', '大事に使います', '一番好きなお店', 'また利用します', 'また利用させていただきます'],
    smallTalkFillers: ['です', 'ね', 'よ', 'ございます', 'とても', '本当に', 'ほんとうに', 'また', 'では', 'じゃあ', 'あ', 'ああ', 'えー', 'ー', '〜', 'w', 'ｗ', 'いえ', 'いいえ', 'ございました', 'いたします', 'どうも', 'ほんとに', '色々', 'いろいろ', '！', 'いつも', '素敵な商品', '商品', '素敵', 'いつも素敵な商品', 'これからも'],
    // Not "有人" or "人" alone: Chinese reads them as "someone" ("有人吗", is anyone there); compounds name a person.
    person: ['オペレーター', 'オペレータ', '担当者', '担当の方', '人間', 'スタッフ', '有人対応', 'サポート担当', 'カスタマーサポート', '係の人', '係員', '生身の人', '担当者様', '担当の人', 'オペレーターさん', '人間のスタッフ', '人間のオペレーター', 'サポートの方', 'サポートの人', 'スタッフさん', '窓口の人', '窓口の方', '係の方', '店員', '店員さん', '社員', '社員の方', 'カスタマーサービス', 'お客様窓口', 'お客様センター', '有人チャット', '有人サポート', '有人窓口', '有人のチャット', 'スタッフの方', 'オペレーターの方', 'サポート担当の方', '店員の方', '有人の対応', '人間の対応', '責任者', '上司', '上の人', 'マネージャー', '担当部署', '返品担当', 'オーナー', '店主', '店長', '店長さん', '上の方', '営業の方', 'にんげん', 'たんとうしゃ', 'ningen', 'tantousha', 'tantou no kata', 'operetaa', 'jinkou taiou', 'jinkou', '経理', '経理担当', 'オペさん', '本物の人間', '本当の人間', '本物の人', 'ビューティーアドバイザー', 'アドバイザー', 'アドバイザーの方', 'ゆうじんたいおう', 'yuujin taiou', 'yuujintaiou', 'おぺれーたー', 'おぺれーたーさん', 'ニンゲン', 'お店の方', 'お店の人', '店の方', '店の人', 'おぺれーた', 'すたっふ', 'すたっふさん', 'てんちょう', 'せきにんしゃ', 'かかりのひと', 'チームの方', 'そちらの方', '返品担当の方', 'tantou no hito', '部門の方', '部門の人', '人間の方', '修理部門'],
    someone: ['人', '誰か', 'どなたか', 'hito', 'だれか'],
    // Not "と話す" (to talk with): "人と話すのが苦手です" says talking to people is hard.
    contact: ['と話したい', 'と話せ', 'と話を', '話したい', 'につないで', 'に繋いで', 'につなげて', 'に繋げて', 'に代わって', 'に変わって', 'に代わってください', 'をお願い', 'お願いします', 'を呼んで', 'と連絡', 'に相談', 'と直接', 'に転送', 'と話がしたい', 'と話せますか', 'と話させて', 'に切り替えて', 'に切り替え', '呼んで', 'に相談したい', 'に変えて', 'に回して', 'を出して', 'に対応してほしい', 'に対応してもらいたい', 'に代わってもらえますか', 'につないでもらえますか', 'に繋いでもらえますか', 'とチャットしたい', 'と直接話したい', 'がいい', 'がいいです', 'にお願いしたい', 'to hanashitai', 'hanashitai', 'にかわって', 'にかわってください', 'とはなしたい', 'ni kawatte', 'よんで', '呼んでください', '引き継いで', 'に引き継いで', '引き継いでもらえますか', 'とお話しできますか', 'とお話し', 'とお話ししたい', 'とお話がしたい', 'とお話しさせて', 'と電話でお話し', '相談したい', 'に直接相談したい', 'に直接相談', 'と話す', 'と話すこと', 'に対応していただけますか', 'に対応していただけ', 'に対応してもらえますか', '対応してもらえませんか', '対応してもらえ', 'が対応して', 'が対応してください', 'が対応してほしい', 'につなぐ', 'に繋ぐ', '話せますか', 'に直接ご相談', 'ご相談できれば', '直接ご相談', 'とchat', 'とチャット', 'とチャットできますか', '連絡を取りたい', 'と連絡を取りたい', 'につないでいただけますか', 'つないでいただけますか'],
    contactAfter: true,
    notPerson: ['人間関係', '人間工学', '人気', '人数', '個人', '本人', '何人', '一人', '二人', '大人', '他人', '人形', '代わりの人', '別の人'],
    please: ['ください', 'お願いします', 'お願い', 'おねがいします', '今すぐ', 'すぐ', 'です', 'がほしい', 'が欲しい', 'をください', 'してほしい', 'してください', 'をお願いします', 'してもらえますか', 'もらえますか', 'いただけますか', 'できますか', 'にして', 'にしてください', 'にしてほしい', 'ますか', 'ませんか', '出して', '出してください', '出してほしい', 'onegai', 'onegai shimasu', 'onegaishimasu', 'kudasai', 'おねがい', '人出して', '人を出して', '人お願い', '至急', '人出してよ', '出してよ', '人おねがい', '人おねがいします'],
    available: ['はいますか', 'いますか', 'いませんか', 'はいませんか', 'おられますか', 'はいらっしゃいますか', 'いらっしゃいますか', 'に代われますか', 'いる', 'いるの', 'っているの', 'おる', 'おる？', 'おりますか', 'いない', 'いないの', 'いません', 'っていますか', 'っていますか？', 'っています'],
    callback: ['折り返し', '折り返し電話', '折り返しの電話', '電話がほしい', '電話が欲しい', '電話をください', '電話してください', '電話してほしい', '電話で話したい', '連絡がほしい', '連絡が欲しい', '連絡をください', '連絡してください', '連絡してほしい', 'メールください', 'メールをください', 'メールもらえ', 'メールをもらえ', 'メールして', 'メールで連絡', 'メールを送って', 'メール送って', '電話して', '電話をして', '電話をかけて', '電話もらえ', '電話をもらえ', '電話ください', '連絡ください', '連絡して', '連絡もらえ', 'ご連絡ください', 'エスカレーション', 'でんわください', 'かけ直してください', 'かけ直して', 'かけてほしい', '返信してもらえませんか', 'smsください', 'sms ください', '電話で説明してほしい', 'お電話いただけ', '電話いただけ', 'お電話ください', 'お電話いただきたい', 'メールいただけ', 'ご連絡いただけ', '連絡いただけ', 'お電話をいただけ', '電話くれませんか', '電話くれ', '電話ちょうだい', '折り返しお電話', '電話してもらえる', '連絡ほしい', 'smsで連絡', '折り返しお電話いただく', 'お電話いただく', 'lineください', 'lineして', 'ラインください', '電話で教えていただけないでしょうか', '電話で教えていただけませんか', '電話で教えてほしい', '電話で教えてください', 'メールをいただけ', 'メールいただけますか', '電話をいただけ', '連絡をいただけ', 'ご連絡をいただけ', '電話をいただきたい', '連絡をいただきたい', 'ご連絡をいただきたい', 'メールをいただきたい'],
    machine: ['ボット', 'ロボット', 'チャットボット', 'ai', '自動応答', '機械'],
    alternative: ['それとも'],
    stop: ['ではなく', 'じゃなくて', 'じゃなく', 'は嫌', 'はいや', 'はもういい', 'はいらない', 'やめて', 'とは話したくない', 'と話したくない', 'とは話したくないです', 'と話したくないです', 'はいいから', 'はもういいから', 'やだ', 'いやだ', '嫌だ', 'はやだ', 'とかいいから', 'とかいい'],
    channel: ['電話で', 'メールで', 'lineで', 'ラインで'],
    reachOut: ['お電話', '電話', 'メール', 'ご連絡', '連絡'],
    // Not "誰" (who): it starts "誰か" (someone).
    asksWhat: ['何ですか', '何が', '何を', 'なぜ', 'どの', 'どれ', 'いくつ', 'いくら'],
    contrast: ['でも', 'けど', 'けれど', 'けれども', 'しかし', '残念', 'ですが'],
  },
  zh: {
    condition: ['如果', '要是', '再不'],
    nobody: ['没人', '没有人'],
    greeting: ['你好', '您好', '嗨', '哈喽', '哈啰', '早上好', '下午好', '晚上好', '早', '早安', '大家好', '在吗', '在么', '你好呀', '你好啊', '喂', '有人吗', '有人在吗', '有人在么', '你们好', '大家好呀', 'nihao', 'ni hao'],
    thanks: ['谢谢', '谢谢你', '谢谢您', '多谢', '感谢', '非常感谢', '感谢您', '太感谢了', '谢啦', '谢了', '3q', '谢谢啦', '十分感谢', '萬分感謝', '謝謝', '多謝', '感謝', '谢谢亲', '感谢感谢', '多谢了', '辛苦了', '辛苦你了', '麻烦你了', '麻烦了', '辛苦啦', '蟹蟹', '谢谢老板', '谢谢老板娘', '感谢老板'],
    goodbye: ['再见', '拜拜', '回见', '下次见', '再會', '再見', '晚安', '祝您愉快', '祝你愉快', '先这样', '88', '没有了', '没别的了', '就这些', '就这样', '先这样吧', '回头见', '拜', '晚上愉快', '祝你晚上愉快', '祝你今天愉快', '886', '没别的事了', '没别的事了谢谢'],
    acknowledgement: ['好的', '好', '好吧', '明白', '明白了', '知道了', '了解', '了解了', '收到', '行', '可以', '没问题', '懂了', 'ok的', '嗯', '嗯嗯', '好嘞', '好滴', '清楚了', '太好了', '完美', '好的好的', '好哒', '收到了', '知道啦', 'ok', '可以了', '行吧', '没事了', '没问题了', '明白啦', '服务很棒', '服务很好', '服务不错', '赞一个', '给你点赞', '帮了大忙', '帮了我大忙', '服务真好', '你们服务真好', '服务太好了', '服务超赞', '太贴心了', '服务真不错', '你们服务真不错', '客服好棒', '好棒', '客服小姐姐太贴心了', '真贴心', '解决了', '搞定了', '好了', '已经好了', '可以用了', '你们家发货真快', '发货真快', '给个好评', '不错', '真不错', '真棒', '棒', '很棒', '客服小姐姐好棒', '客服小姐姐真棒', '客服小姐姐太棒了', '小姐姐好棒', '小姐姐真棒', '小姐姐太棒了', '客服真棒'],
    praise: ['好评', '五星好评', '点赞', '赞', '给你们点赞', '太棒了', '会回购的', '会回购', '推荐', '绝了', '真的绝了', '加油', '你们加油', 'nb', 'yyds', '很喜欢', '超喜欢', '超赞', '服务超赞', '继续保持', '继续保持哦', '最好的店', '最喜欢你们家', '爱了', '爱了爱了', '良心店家', '良心卖家'],
    smallTalkFillers: ['你', '您', '了', '啊', '呀', '哦', '噢', '喔', '啦', '嘛', '吧', '呢', '的', '非常', '很', '真', '真的', '那', '那就', '那么', '就', '大家', '亲', '哈哈', '呵呵', '哈', '嗯', '哦哦', '好好', '谢', '你们家', '东西', '你们家东西', '服务', '你们的服务', '商品'],
    person: ['人工', '人工客服', '人工服务', '真人', '真人客服', '客服人员', '工作人员', '客服', '专员', '坐席', '活人', '人工坐席', '客服专员', '客服小姐姐', '客服妹子', '售后', '售后客服', '店家', '掌柜', '老板', '你们的客服', '你们客服', '你们的人工客服', '跟人说话', '和人说话', '跟人聊', '和人聊', '跟人工说话', '找个人', '经理', '主管', '负责人', '领导', '退货部门', '售后部门', '店主', '管事的', '负责的人', 'rengong', 'ren gong', 'rengong kefu', 'zhuan rengong', 'zhuan ren gong', 'kefu', '专人', '專人', '上级', '接线员', 'rgkf', 'rengongkefu', '懂的人', '让个懂的人', 'rg', '财务', '财务那边的人', '财务的人', '团队的人', '你们团队的人', '仁工', '转仁工', '负责批发的同事', '的同事', '在线的客服', '在线客服', '设计师', '护肤顾问', '你们的顾问', '客服人員', '專員', 'zrg', '美妆顾问', '购物顾问'],
    // Not "和" or "跟" (with): "和客服说过了" told customer service before; "和真人说话" has its verb.
    contact: ['转', '转接', '找', '我要', '要', '接人工', '接个人工', '接真人', '接客服', '联系', '叫', '换', '说话', '聊', '对话', '沟通', '谈', '跟我说', '和我说', '跟我聊', '和我聊', '跟我谈', '来跟我', '接通', '转到', '帮我转', '找个', '叫个', '换成', '跟人说', '和人说', '跟真人说', '找人问', '找人问问', '找个人问问', '找人聊', '跟人聊聊', '聊聊', '升级给', '接手', '转给', '帮我转给', '转交给', '回复我', '来回复我', '轉接', '幫我轉接', '帮我转接'],
    contactAfter: true,
    notPerson: ['人工流产', '人工智能', '人工智慧', '人工湖', '人工合成', '人工降雨', '人工林', '人工成本', '客服电话', '客服时间', '谢谢老板', '谢谢老板娘', '感谢老板', '自称你们客服', '自称客服', '自称是客服', '自称是你们客服'],
    negation: ['不', '别', '不要', '没', '不想', '不用', '不需要'],
    please: ['吗', '么', '嘛', '呢', '吧', '啊', '呀', '请', '麻烦', '谢谢', '一下', '马上', '快点', '！', '急', '着急', '如果可以', '如果可以的话', '可以的话'],
    exists: ['有没有', '有木有', '有', '还有'],
    available: ['在吗', '在么', '在嘛', '在不在', '在线吗', '在线', '在'],
    callback: ['回电', '回电话', '给我打电话', '打电话给我', '给我回电话', '联系我', '回访', '来电话', '回个电话', '给我回个电话', '打个电话给我', '给我打个电话', '发邮件给我', '给我发邮件', '给我发个邮件', '发个邮件给我', '邮件联系我', '电话联系我', '给我写邮件', '发短信给我', '给我发短信', '打我电话', '给我发个短信', '加我微信', '微信联系我', '短信联系我', '升级处理', '发个短信给我', '发短信通知我', '短信通知我', '打给我', '给我打', '跟我联络', '跟我联系', '和我联系', '联系一下我', '跟我聯絡', '跟我聯繫', '直接打电话跟我', '打电话跟我处理', '发邮件给我吧', '直接发邮件给我', '升级投诉', '帮我升级投诉', '帮我升级', '打电话教教我', '打电话教我', '打个电话', '打电话给她', '打电话给他', '给她打电话', '给他打电话', '联系她', '联系他', '和我电话沟通', '跟我电话沟通'],
    topic: ['关于'],
    machine: ['机器人', '机器', '自动回复', '智能客服', '人工智能'],
    alternative: ['还是', '或者'],
    stop: ['不要', '不想', '别', '受够了', '够了', '别让', '不要让'],
    personFillers: ['个', '一个', '你们', '的', '其他', '别的', '其他的', '直接', '那边的', '在线的', '现在', '你們', '你們的'],
    askFor: ['能不能', '可不可以', '能否', '可以', '能', '让'],
    asksHow: ['怎么', '怎样', '如何', '什么时候', '几点', '想知道'],
    asksWhat: ['什么', '哪', '为什么', '多少'],
    asksWhether: ['是在', '是不是在', '是真人在', '是真人还是', '是人工还是', '是机器人还是', '真人在回'],
    someone: ['谁', '店里的人', '店家的人', '你们店的人', '你们的人', '同事', '店员'],
    contrast: ['但', '但是', '不过', '可是', '可惜', '就是', '只是'],
  },
  ko: {
    greeting: ['안녕하세요', '안녕', '안녕하십니까', '하이', '반갑습니다', '좋은 아침', '안뇽', '여보세요'],
    thanks: ['감사합니다', '감사해요', '고마워요', '고맙습니다', '고마워', '땡큐', '감사', 'ㄱㅅ', '감솨', '정말 감사합니다', '대단히 감사합니다', '감사드립니다', '감사합니당', '감사해용', '고마워용', '고맙습니당', '감사드려요'],
    goodbye: ['안녕히 계세요', '안녕히 가세요', '잘 있어요', '다음에 봐요', '수고하세요', '수고하셨습니다', '바이', '좋은 하루 되세요', '좋은 하루', '좋은 하루 보내세요', '좋은 하루 보내', '좋은 저녁 보내세요', '좋은 주말 보내세요'],
    acknowledgement: ['알겠습니다', '알겠어요', '알았어요', '알겠어', '네', '네네', '넵', '좋아요', '좋습니다', '확인했습니다', '이해했습니다', '오케이', '그렇군요', 'ㅇㅋ', 'ㅇㅇ', '괜찮아요'],
    smallTalkFillers: ['정말', '진짜', '너무', '많이', '아', '네', '요', 'ㅎㅎ', 'ㅋㅋ', 'ㅠㅠ', '그럼', '다시'],
    person: ['상담원', '상담사', '직원', '사람', '담당자', '매니저', '실제 사람', '진짜 사람', '상담', '직원분', '상담원분', '담당자분', '상담사분', '매니저님', '사람 상담원', '고객센터', '상담원님', '상담사님', '상담 가능한 분', '담당하시는 분', '직원 분'],
    // Talking with its wanting or asking ending, not the bare stem: "상담원이랑 통화했는데" (I called an agent, yesterday) tells.
    contact: [
      '연결', '바꿔', '불러', '요청', '상담하고', '만나', '통화하고', '통화할', '통화해', '통화 원', '통화 가능', '통화 부탁', '통화 연결', '얘기하고', '얘기할', '얘기해',
      '얘기 좀', '이야기하고', '이야기할', '이야기해', '이야기 좀', '대화하고', '대화할', '대화해', '대화 좀', '불러주세요', '불러 주세요',
    ],
    contactAfter: true,
    notPerson: ['사람들', '직원들이', '사람이 많'],
    // Not "말고" (rather than): it turns away what comes before it ("챗봇 말고 사람", the chatbot, not a person).
    negation: ['안', '않', '싫어'],
    please: ['주세요', '해주세요', '해 주세요', '부탁해요', '부탁드려요', '부탁드립니다', '부탁합니다', '요', '좀', '지금', '빨리', '원해요', '원합니다', '원해', '하고 싶어요', '싶어요', '주실 수 있나요', '주실 수 있을까요', '줄 수 있나요', '주시겠어요', '주실래요', '이요', '봇 말고', '챗봇 말고', '로봇 말고', '기계 말고', '수 있나요', '수 있을까요'],
    available: ['있나요', '있어요', '있습니까', '있으신가요', '계신가요', '계세요', '없나요', '없어요'],
    callback: ['전화해', '전화 주세요', '전화해 주세요', '전화 부탁', '연락 주세요', '연락해 주세요', '연락 부탁', '콜백', '전화 좀', '전화 상담', '전화상담', '전화 통화', '콜백 요청', '메일 보내', '메일 좀 보내', '메일로 연락', '이메일 보내', '이메일 좀 보내', '문자 보내', '문자 좀 보내', '다시 전화', '다시 전화해', '전화 다시', '전화', '연락'],
    machine: ['챗봇', '봇', '로봇', '자동응답', '기계'],
    stop: ['그만', '싫어', '말고', '아니고', '아니라'],
    someone: ['누가', '누구', '아무나', '누군가'],
    asksWhat: ['무엇', '뭐', '누가', '누구', '왜', '어떤', '몇'],
    contrast: ['하지만', '그런데', '근데', '그러나', '아쉽게도', '다만'],
  },
  ru: {
    greeting: ['привет', 'здравствуйте', 'здравствуй', 'добрый день', 'доброе утро', 'добрый вечер', 'приветствую', 'здрасьте', 'хай', 'салют', 'доброго дня'],
    thanks: ['спасибо', 'спс', 'благодарю', 'спасибо большое', 'большое спасибо', 'огромное спасибо', 'спасибки', 'пасиб', 'пасибо', 'спасибо огромное', 'благодарствую'],
    goodbye: ['до свидания', 'пока', 'всего доброго', 'всего хорошего', 'до встречи', 'хорошего дня', 'прощайте', 'счастливо', 'пока пока', 'удачи', 'спокойной ночи', 'нет спасибо', 'это всё', 'это все', 'больше ничего'],
    acknowledgement: ['ок', 'понятно', 'хорошо', 'ясно', 'ладно', 'отлично', 'окей', 'договорились', 'принято', 'понял', 'поняла', 'супер', 'класс', 'замечательно', 'прекрасно', 'угу', 'ага', 'норм', 'всё понятно', 'все понятно'],
    smallTalkFillers: ['вам', 'тебе', 'за помощь', 'за информацию', 'за ответ', 'ещё раз', 'еще раз', 'и', 'ну', 'тогда', 'а', 'очень', 'вообще', 'всё', 'все', 'большое', 'огромное', 'огромнейшее', 'большущее', 'за подробный ответ', 'всем'],
    person: ['оператор*', 'человек*', 'живой человек', 'живым человеком', 'сотрудник', 'сотрудника', 'сотруднику', 'сотрудником', 'менеджер*', 'консультант*', 'специалист*', 'агент', 'агента', 'агентом', 'представител*', 'живого человека'],
    someone: ['кем нибудь', 'кем-нибудь', 'кто нибудь', 'кого нибудь', 'кем то'],
    contact: ['поговорить', 'позовите', 'позови', 'соедините', 'соедини', 'переключите', 'переключи', 'связаться', 'свяжите', 'пообщаться', 'дайте', 'нужен', 'нужна', 'переведите', 'общаться'],
    want: ['хочу', 'хотел бы', 'хотела бы', 'можно', 'нужен', 'нужно', 'дайте'],
    contactAfter: true,
    please: ['пожалуйста', 'пж', 'пжл', 'плиз', 'срочно', 'сейчас'],
    personFillers: ['с', 'со', 'живым', 'живой', 'настоящим', 'реальным', 'к', 'свободный', 'свободного', 'свободные'],
    notPerson: ['человеческий', 'человечество', 'человека который', 'людей'],
    negation: ['не', 'нет', 'без'],
    exists: ['есть', 'а есть', 'есть ли', 'у вас есть', 'тут есть', 'здесь есть'],
    available: ['доступен', 'на связи', 'онлайн', 'свободен'],
    callback: ['позвоните мне', 'перезвоните мне', 'перезвоните', 'перезвонит*', 'перезвонить', 'позвонить мне', 'свяжитесь со мной', 'обратный звонок', 'наберите меня'],
    machine: ['бот', 'бота', 'боту', 'ботом', 'боте', 'боты', 'ботов', 'робот', 'робота', 'роботу', 'роботом', 'чат бот', 'чат бота', 'чат ботом', 'автоответчик'],
    stop: ['хватит', 'надоел', 'достал', 'не надо', 'долой'],
    me: ['мне', 'меня'],
    reachOut: ['написать', 'позвонить', 'перезвонить', 'ответить', 'связаться'],
    channel: ['на почту', 'на email', 'на имейл', 'на емейл', 'по почте', 'по телефону', 'в телеграм', 'в телеграме', 'на телефон', 'по номеру', 'мой номер', 'номер', 'завтра', 'сегодня'],
    asksHow: ['как', 'когда', 'где', 'во сколько', 'до скольки'],
    asksWhat: ['что', 'кто', 'кого', 'кому', 'какой', 'какая', 'какие', 'какое', 'почему', 'зачем', 'сколько', 'чей'],
    contrast: ['но', 'однако', 'к сожалению', 'только'],
  },
  sv: {
    greeting: ['hej', 'hejsan', 'hej hej', 'hallå', 'god morgon', 'god dag', 'god kväll', 'tjena', 'tja', 'morsning'],
    thanks: ['tack', 'tack så mycket', 'tusen tack', 'stort tack', 'tackar', 'tack tack', 'tack för hjälpen', 'tack snälla', 'tack ska du ha', 'tack ska ni ha'],
    goodbye: ['hej då', 'hejdå', 'adjö', 'vi ses', 'ha en bra dag', 'ha det bra', 'ha det', 'ses', 'vi hörs', 'hörs', 'hörs av'],
    acknowledgement: ['okej', 'uppfattat', 'förstår', 'jag förstår', 'toppen', 'perfekt', 'bra', 'fint', 'kanon', 'precis', 'absolut', 'jättebra', 'grymt', 'utmärkt', 'schysst'],
    smallTalkFillers: ['så mycket', 'för hjälpen', 'för det', 'igen', 'och', 'då', 'ni', 'dig', 'er', 'alla', 'allihop', 'allihopa'],
    person: ['människa', 'en människa', 'riktig person', 'verklig person', 'person', 'handläggare', 'agent', 'operatör', 'kundtjänst', 'medarbetare', 'personal', 'kundservice', 'rådgivare'],
    someone: ['någon', 'en från', 'någon från'],
    contact: ['prata', 'tala', 'chatta', 'koppla', 'kopplas', 'koppla mig', 'få prata', 'få tala'],
    want: ['jag vill', 'jag vill ha', 'jag behöver', 'kan jag få', 'får jag', 'ge mig', 'jag vill prata med'],
    please: ['tack', 'snälla', 'nu', 'omgående'],
    personFillers: ['en', 'med', 'riktig', 'till', 'här', 'där', 'någon', 'någon annan', 'ledig', 'tillgänglig'],
    articles: true,
    negation: ['inte', 'ingen', 'aldrig', 'utan'],
    me: ['mig', 'till mig'],
    reachOut: ['ringa', 'ringa upp', 'ring', 'ring upp', 'maila', 'mejla', 'skriva', 'skicka ett mail', 'skicka ett mejl', 'kontakta', 'höra av er', 'hör av er', 'hör av dig', 'ringa tillbaka', 'ring tillbaka'],
    askFor: ['kan ni', 'kan du', 'skulle ni kunna', 'skulle du kunna'],
    exists: ['finns det', 'finns', 'är det', 'är det någon', 'har ni'],
    available: ['tillgänglig', 'ledig', 'online', 'här', 'på plats', 'inne'],
    machine: ['boten', 'roboten', 'chattboten', 'chatboten'],
    stop: ['sluta', 'stopp', 'nog med', 'inte mer'],
    channel: ['på mail', 'på mejl', 'per mail', 'via mail', 'på telefon', 'per telefon', 'på', 'på nummer', 'mitt nummer är', 'i morgon', 'idag'],
    asksHow: ['hur', 'när'],
    asksWhat: ['vad', 'vem', 'vilken', 'vilket', 'vilka', 'varför', 'hur många'],
    contrast: ['men', 'tyvärr', 'dock'],
  },
  da: {
    greeting: ['hej', 'hejsa', 'godmorgen', 'goddag', 'god morgen', 'god aften', 'halløj', 'dav'],
    thanks: ['tak', 'mange tak', 'tusind tak', 'tak skal du have', 'tak for hjælpen', 'tak tak', 'takker'],
    goodbye: ['farvel', 'hej hej', 'vi ses', 'hav en god dag', 'god dag', 'hav det godt', 'ses', "ha' en god dag", 'ha en god dag'],
    acknowledgement: ['okay', 'forstået', 'fint', 'godt', 'perfekt', 'super', 'fedt', 'det er fint', 'i orden', 'jeg forstår', 'selvfølgelig', 'selvfolgelig', 'klart', 'top'],
    smallTalkFillers: ['for hjælpen', 'for det', 'igen', 'og', 'så', 'jer', 'dig', 'skal du have', 'alle sammen', 'alle'],
    person: ['menneske', 'et menneske', 'rigtig person', 'medarbejder*', 'kundeservice', 'agent', 'operatør', 'person', 'rådgiver*', 'en fra jeres team', 'en fra kundeservice', 'en fra jer', 'nogen fra kundeservice', 'nogen fra jeres team'],
    someone: ['nogen', 'en fra', 'nogen fra'],
    contact: ['tale', 'snakke', 'chatte', 'stille mig om', 'forbind', 'forbinde', 'viderestille', 'stil mig om', 'stil mig videre', 'viderestil mig', 'sæt mig i forbindelse med'],
    want: ['jeg vil', 'jeg vil gerne', 'jeg har brug for', 'kan jeg få', 'må jeg få', 'må jeg', 'giv mig'],
    please: ['tak', 'venligst', 'nu'],
    personFillers: ['en', 'et', 'med', 'rigtig', 'til', 'her', 'der', 'ledig'],
    articles: true,
    negation: ['ikke', 'ingen', 'aldrig', 'uden'],
    me: ['mig', 'til mig'],
    reachOut: ['ringe', 'ring', 'ringe til', 'ring til', 'ringe tilbage', 'maile', 'mail', 'skrive til', 'skriv til', 'sende', 'kontakte', 'kontakt'],
    callback: ['ringe mig op', 'ring mig op', 'ringe mig tilbage', 'ring mig tilbage'],
    askFor: ['kan i', 'kan du', 'vil i', 'vil du'],
    exists: ['er der', 'findes der', 'har i'],
    available: ['ledig', 'tilgængelig', 'online', 'her'],
    machine: ['botten', 'robotten', 'chatbotten'],
    stop: ['stop', 'hold op med', 'nok med'],
    channel: ['en mail', 'en e-mail', 'en sms', 'på mail', 'på telefon', 'per mail', 'på', 'på nummer', 'mit nummer er', 'i morgen', 'i dag'],
    asksHow: ['hvordan', 'hvornår'],
    asksWhat: ['hvad', 'hvem', 'hvilken', 'hvilket', 'hvilke', 'hvorfor', 'hvor mange'],
    contrast: ['men', 'desværre', 'dog'],
  },
  no: {
    greeting: ['hei', 'heisann', 'hallo', 'god morgen', 'god dag', 'god kveld', 'hei hei'],
    thanks: ['takk', 'tusen takk', 'mange takk', 'takk skal du ha', 'takk for hjelpen', 'takker'],
    goodbye: ['ha det', 'ha det bra', 'ha en fin dag', 'ha en god dag', 'vi snakkes', 'snakkes', 'adjø'],
    acknowledgement: ['skjønner', 'forstått', 'greit', 'flott', 'bra', 'supert', 'den er grei', 'det er greit', 'jeg skjønner', 'perfekt', 'topp', 'ålreit', 'fint', 'okei', 'det går fint', 'går fint', 'det er fint'],
    smallTalkFillers: ['for hjelpen', 'for det', 'igjen', 'og', 'så', 'dere', 'deg', 'skal du ha', 'alle sammen', 'alle'],
    person: ['menneske', 'et menneske', 'ekte person', 'ekte menneske', 'medarbeider*', 'kundeservice', 'kundestøtte', 'agent', 'operatør', 'person', 'rådgiver*', 'saksbehandler*', 'en fra kundeservice', 'noen fra kundeservice', 'en fra dere', 'en fra teamet deres'],
    someone: ['med noen', 'noen som', 'er det noen', 'kan noen', 'kunne noen', 'vil noen', 'en fra', 'noen fra'],
    contact: ['snakke', 'prate', 'chatte', 'sett meg over', 'koble', 'koble meg', 'få snakke'],
    want: ['jeg vil', 'jeg vil ha', 'jeg trenger', 'kan jeg få', 'får jeg', 'gi meg'],
    please: ['takk', 'vær så snill', 'nå', 'snarest'],
    personFillers: ['en', 'et', 'med', 'ekte', 'til', 'her', 'der', 'ledig'],
    articles: true,
    negation: ['ikke', 'ingen', 'aldri', 'uten'],
    me: ['meg', 'til meg'],
    reachOut: ['ringe', 'ring', 'ringe til', 'ring til', 'maile', 'skrive til', 'sende', 'kontakte', 'ta kontakt med'],
    callback: ['ringe meg tilbake', 'ring meg tilbake', 'ringe meg opp', 'ring meg opp'],
    askFor: ['kan dere', 'kan du', 'vil dere', 'kunne dere'],
    exists: ['er det', 'finnes det', 'har dere'],
    available: ['ledig', 'tilgjengelig', 'på nett', 'her'],
    machine: ['boten', 'roboten', 'chatboten'],
    stop: ['stopp', 'slutt med', 'nok med'],
    channel: ['en e-post', 'en epost', 'en mail', 'en sms', 'på e-post', 'på epost', 'på mail', 'på telefon', 'på', 'på nummer', 'nummeret mitt er', 'i morgen', 'i dag'],
    asksHow: ['hvordan', 'når'],
    asksWhat: ['hva', 'hvem', 'hvilken', 'hvilket', 'hvilke', 'hvorfor', 'hvor mange'],
    contrast: ['men', 'dessverre', 'dog'],
  },
  fi: {
    greeting: ['moi', 'moikka', 'hei', 'terve', 'huomenta', 'hyvää huomenta', 'hyvää päivää', 'päivää', 'iltaa', 'hyvää iltaa', 'moro', 'morjens', 'tervehdys', 'terve terve', 'moro moro'],
    thanks: ['kiitos', 'kiitti', 'kiitoksia', 'kiitos paljon', 'paljon kiitoksia', 'kiitos avusta', 'kiitos kovasti', 'kiitokset', 'kitos'],
    goodbye: ['näkemiin', 'nakemiin', 'heippa', 'hei hei', 'moikka moikka', 'nähdään', 'mukavaa päivänjatkoa', 'hyvää päivänjatkoa', 'hei sitten', 'moi moi'],
    acknowledgement: ['selvä', 'selva', 'okei', 'ymmärrän', 'ymmärretty', 'hyvä', 'hienoa', 'loistavaa', 'täydellistä', 'jees', 'joo', 'just niin', 'oke'],
    smallTalkFillers: ['paljon', 'kovasti', 'avusta', 'vielä', 'ja', 'sitten', 'teille', 'sinulle', 'kaikki', 'kaikille'],
    person: ['ihminen', 'ihmisen', 'ihmisen kanssa', 'oikea ihminen', 'oikean ihmisen', 'asiakaspalvelija*', 'asiakaspalvelu*', 'työntekijä*', 'henkilö', 'henkilön', 'agentti*', 'operaattori*', 'virkailija*', 'henkilökunta*', 'agentille', 'agentin', 'agentilla', 'ihmiselle', 'ihmisellä', 'henkilökun*'],
    someone: ['jonkun', 'joku'],
    contact: ['puhua', 'jutella', 'keskustella', 'yhdistä', 'yhdistäkää', 'ohjaa', 'ohjatkaa', 'saada puhua', 'päästä puhumaan', 'puhumaan'],
    want: ['haluan', 'haluaisin', 'tarvitsen', 'saanko', 'voinko', 'saisinko', 'tarviin', 'tarvitsisin', 'tahdon', 'haluun', 'haluisin'],
    please: ['kiitos', 'kiitos kiitos', 'heti', 'nyt'],
    personFillers: ['oikea', 'oikean', 'kanssa', 'tänne', 'tähän', 'paikalle', 'vapaata', 'vapaa', 'ketään'],
    negation: ['en', 'ei', 'älä', 'ilman'],
    me: ['minulle', 'minulle takaisin', 'mulle', 'mulle takaisin', 'minut', 'minuun', 'muhun'],
    reachOut: ['soittaa', 'soittakaa', 'soita', 'soittaisitteko', 'lähettää', 'lähettäkää', 'laittaa', 'laittakaa', 'kirjoittaa', 'ottaa yhteyttä', 'ottakaa yhteyttä', 'ota yhteyttä'],
    callback: ['soittaa takaisin', 'soittakaa takaisin', 'soita takaisin', 'soittopyyntö', 'takaisinsoitto', 'ottaa minuun yhteyttä', 'ottakaa minuun yhteyttä', 'ota minuun yhteyttä', 'ottaa muhun yhteyttä'],
    askFor: ['voitteko', 'voisitteko', 'voitko', 'voisitko', 'voiko', 'saisinko'],
    exists: ['onko', 'onko siellä', 'onko täällä', 'löytyykö'],
    available: ['paikalla', 'saatavilla', 'linjoilla', 'tavoitettavissa', 'vapaana', 'täällä', 'siellä'],
    channel: ['sähköpostia', 'sähköpostilla', 'sähköpostitse', 'viestiä', 'tekstiviestiä', 'puhelimitse', 'numeroon', 'numerooni', 'huomenna', 'tänään'],
    asksHow: ['miten', 'milloin', 'kuinka', 'mihin aikaan'],
    asksWhat: ['mikä', 'mitä', 'kuka', 'ketä', 'kenelle', 'miksi', 'montako', 'kuinka monta'],
    contrast: ['mutta', 'valitettavasti', 'kuitenkin'],
  },
  cs: {
    greeting: ['ahoj', 'dobrý den', 'dobry den', 'dobré ráno', 'dobrý večer', 'čau', 'cau', 'zdravím', 'zdravim', 'nazdar'],
    thanks: ['děkuji', 'dekuji', 'díky', 'diky', 'děkuju', 'dekuju', 'děkuji moc', 'moc děkuji', 'mockrát děkuji', 'dík', 'děkuji pěkně', 'díky moc'],
    goodbye: ['nashledanou', 'na shledanou', 'měj se', 'mějte se', 'hezký den', 'pěkný den', 'čau čau', 'sbohem', 'zatím'],
    acknowledgement: ['dobře', 'dobre', 'rozumím', 'rozumim', 'jasně', 'jasne', 'v pořádku', 'v poradku', 'výborně', 'vyborne', 'perfektní', 'fajn', 'paráda', 'chápu', 'beru na vědomí'],
    smallTalkFillers: ['moc', 'mockrát', 'za pomoc', 'za informace', 'pěkně', 'ještě jednou', 'a', 'tak', 'vám'],
    person: ['operátor*', 'operator*', 'člověk*', 'clovek*', 'živý člověk', 'zivy clovek', 'živým člověkem', 'pracovník*', 'pracovnik*', 'konzultant*', 'poradce', 'zákaznick* podpor*', 'skutečn* osob*', 'osoba', 'osobou', 'osobu'],
    someone: ['někým', 'nekym', 'někoho', 'nekoho'],
    contact: ['mluvit', 'promluvit', 'hovořit', 'hovorit', 'spojit', 'spojte', 'přepojte', 'prepojte', 'přepojit', 'chatovat'],
    want: ['chci', 'chtěl bych', 'chtel bych', 'chtěla bych', 'potřebuji', 'potrebuji', 'můžu', 'mohu'],
    please: ['prosím', 'prosim', 'hned', 'teď', 'ted'],
    personFillers: ['s', 'se', 'skutečným', 'živým', 'zivym', 'k'],
    notPerson: ['osoby', 'lidé', 'lidi'],
    negation: ['ne', 'nechci', 'bez'],
    asksWhat: ['co', 'kdo', 'koho', 'který', 'která', 'které', 'proč', 'kolik'],
    contrast: ['ale', 'bohužel', 'však', 'jenže'],
  },
  ar: {
    greeting: ['مرحبا', 'مرحباً', 'أهلا', 'اهلا', 'أهلاً', 'السلام عليكم', 'سلام', 'صباح الخير', 'مساء الخير', 'هلا', 'اهلا وسهلا', 'أهلا وسهلا', 'مرحبا بك'],
    thanks: ['شكرا', 'شكراً', 'شكرا لك', 'شكرا جزيلا', 'شكراً جزيلاً', 'مشكور', 'مشكورين', 'جزاك الله خيرا', 'ألف شكر', 'الف شكر', 'تسلم', 'يعطيك العافية', 'شكرًا'],
    goodbye: ['مع السلامة', 'وداعا', 'وداعاً', 'إلى اللقاء', 'الى اللقاء', 'في أمان الله', 'باي', 'يوم سعيد', 'تصبح على خير'],
    acknowledgement: ['حسنا', 'حسناً', 'تمام', 'فهمت', 'ممتاز', 'طيب', 'موافق', 'أوكي', 'اوكي', 'جميل', 'رائع', 'واضح', 'مفهوم', 'ماشي', 'حاضر'],
    smallTalkFillers: ['لك', 'لكم', 'جزيلا', 'جدا', 'على المساعدة', 'على مساعدتك', 'و', 'كثيرا', 'مرة أخرى', 'يا', 'أخي', 'اخي'],
    person: ['موظف', 'موظفا', 'الموظف', 'شخص', 'شخصا', 'انسان', 'ممثل', 'ممثلا', 'خدمة العملاء', 'مندوب', 'بشري', 'شخص حقيقي', 'وكيل', 'مسؤول', 'الدعم الفني'],
    someone: ['أحد', 'احد', 'حد'],
    contact: ['التحدث', 'التكلم', 'اتكلم', 'أتكلم', 'أتحدث', 'اتحدث', 'الحديث', 'تحويلي', 'حولني', 'حوّلني', 'اوصلني', 'أوصلني', 'وصلني', 'كلم', 'أكلم', 'اكلم', 'التواصل', 'تواصل', 'المحادثة', 'محادثة', 'ربطي'],
    want: ['أريد', 'اريد', 'ابغى', 'أبغى', 'ابي', 'أبي', 'عايز', 'بدي', 'أحتاج', 'احتاج', 'ممكن'],
    please: ['من فضلك', 'لو سمحت', 'رجاء', 'رجاءً', 'الآن', 'حالا'],
    personFillers: ['مع', 'حقيقي', 'ب', 'الى', 'إلى'],
    negation: ['لا', 'لم', 'لن', 'ليس', 'مش', 'ما', 'بدون'],
    asksWhat: ['ماذا', 'ما هو', 'ما هي', 'من هو', 'لماذا', 'كم', 'أي'],
    contrast: ['لكن', 'ولكن', 'لكنه', 'للأسف', 'مع ذلك'],
  },
};

/* ------------------------------------------------------------------------------------ */
/* Normalizing text into words                                                          */
/* ------------------------------------------------------------------------------------ */

/** Scripts written without spaces: each character is a word of its own, and phrases are runs of them. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー〜]/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
/** Punctuation that ends a clause: a request for a person and what it is about stay within one. */
const CLAUSE_END = /[.!?;,:。！？；，、…\n\r؟،]/u;
/** An emoji other than a word of small talk ends a clause as a full stop does: "sto bot non serve a niente 😡 un operatore subito". */
/** What stands inside a figure ("19:00", "4,50", "3.5"). */
const FIGURE_MARK = /[.,:]/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
/** Emoji that are words of the wordings ("👍" is "ok"); every other emoji or symbol is dropped. */
const EMOJI_WORDS = new Set(['👍', '👌', '🆗', '✅', '🙏', '👋', '🙇', '🌹']);
/** Letters that no decomposition takes apart. */
const FOLDED_LETTERS: Record<string, string> = { ß: 'ss', ł: 'l', ı: 'i', ø: 'o', æ: 'ae', œ: 'oe', đ: 'd', ð: 'd', þ: 'th', ё: 'е', й: 'и' };
/** Arabic letters written in several forms, and its optional vowel marks. */
const ARABIC_FOLDS: Record<string, string> = { 'أ': 'ا', 'إ': 'ا', 'آ': 'ا', 'ٱ': 'ا', 'ة': 'ه', 'ى': 'ي', 'ؤ': 'و', 'ئ': 'ي' };
const ARABIC_MARKS = /[\u064B-\u065F\u0670\u0640]/u;
const COMBINING_MARK = /\p{M}/u;
/** The scripts whose accents matching ignores (NFKC has already joined kana and Hangul with their marks). */
const ACCENTED_SCRIPT = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u;
/** An emoticon, whose letters ("D", "P") must not become words. */
const EMOTICON = /(?:^|\s)[:;=8xX][-'^]?[)(DPpO3\]\[/\\|*]+(?=\s|$)|<3|m\(_ ?_\)m/gu;
/** A smiling emoticon or kaomoji (":-)", ";)", "<3", "(^^)/", "^_^", the bow "m(_ _)m"): alone, it nods as "🙂" does; a sad one (":(") does not. */
const HAPPY_EMOTICON = /(?:^|\s)[:;=8xX][-'^]?[)D\]pP3*]+(?=\s|$)|<3|[(（]?\^[_\-.]?\^[)）]?[/ノ]?|m\(_ ?_\)m/gu;

/** A unit of the message: a word (or one character of an unspaced script), or the end of a clause. */
interface Unit {
  word: string;
  /** True for a character of an unspaced script (Chinese, Japanese, Korean). */
  unspaced: boolean;
  /** True for such a character after a space that follows another: where a customer typing Chinese without punctuation ends a thought ("我不太会用手机 能不能找个人打电话给我"). */
  afterSpace?: boolean;
}
const CLAUSE: Unit = { word: '|', unspaced: false };

/** Counts the matcher's steps (characters read, words compared), so a test can show its work grows linearly. */
interface Work {
  steps: number;
}

/** Folds one character of a word: lower case, no accents (where the script has them), one spelling of Arabic letters. */
function foldCharacter(character: string): string {
  const folded = FOLDED_LETTERS[character] ?? ARABIC_FOLDS[character];
  if (folded !== undefined) return folded;
  // A mark standing alone: Arabic vowels, or the dot Turkish "İ" keeps when lower-cased ("i̇yi").
  if (ARABIC_MARKS.test(character) || COMBINING_MARK.test(character)) return '';
  if (!ACCENTED_SCRIPT.test(character)) return character;
  let out = '';
  for (const part of character.normalize('NFD')) if (!COMBINING_MARK.test(part)) out += part;
  return out;
}

/**
 * A spaced word as matching compares it: German "ae/oe/ue" read as the umlaut they
 * spell (which then loses its accent like "ä"), and letters typed repeatedly
 * ("thaaanks", "hallo" → "halo") once. Applied alike to the wordings and the message.
 */
function foldWord(word: string): string {
  let out = '';
  let previous = '';
  for (let i = 0; i < word.length; i++) {
    const character = word[i]!;
    if (word[i + 1] === 'e' && (character === 'a' || character === 'o' || character === 'u') && i > 0) i += 1;
    if (character === previous) continue;
    out += character;
    previous = character;
  }
  return out;
}

/**
 * The message as units: NFKC, lower case, accents and emoji folded, apostrophes inside
 * words dropped ("d'accord" → "daccord"), other punctuation a clause end or a space.
 * One pass over the characters.
 */
function unitsOf(text: string, work: Work): Unit[] {
  const units: Unit[] = [];
  let word = '';
  const endWord = () => {
    if (word !== '') units.push({ word: foldWord(word), unspaced: false });
    word = '';
  };
  const endClause = () => {
    endWord();
    if (units.length > 0 && units[units.length - 1] !== CLAUSE) units.push(CLAUSE);
  };
  const normalized = text.replace(EMOTICON, ' ').normalize('NFKC').toLowerCase();
  const characters = Array.from(normalized);
  for (let i = 0; i < characters.length; i++) {
    work.steps += 1;
    const character = characters[i]!;
    if (EMOJI_WORDS.has(character)) {
      endWord();
      units.push({ word: character, unspaced: false });
    } else if (UNSPACED.test(character)) {
      endWord();
      const afterSpace = /\s/u.test(characters[i - 1] ?? '') && units[units.length - 1]?.unspaced === true;
      units.push(afterSpace ? { word: character, unspaced: true, afterSpace } : { word: character, unspaced: true });
    } else if (LETTER_OR_DIGIT.test(character) || COMBINING_MARK.test(character)) {
      word += foldCharacter(character);
    } else if ((character === "'" || character === '’' || character === '`') && word !== '' && LETTER_OR_DIGIT.test(characters[i + 1] ?? '')) {
      // "d'accord", "can't": one word ("mettez-moi" stays two).
    } else if (FIGURE_MARK.test(character) && /\d$/u.test(word) && /\d/u.test(characters[i + 1] ?? '')) {
      // "19:00", "4,50", "3.5": a figure, not two clauses ("bel me na 19:00 even").
      endWord();
    } else if (CLAUSE_END.test(character) || PICTOGRAPH.test(character)) {
      endClause();
    } else {
      endWord();
    }
  }
  endWord();
  while (units[units.length - 1] === CLAUSE) units.pop();
  return units;
}

/** The words of a wording, as the message's units are matched against them. */
function wordsOf(wording: string): string[] {
  return unitsOf(wording, { steps: 0 })
    .filter((unit) => unit !== CLAUSE)
    .map((unit) => unit.word);
}

/* ------------------------------------------------------------------------------------ */
/* The wordings, indexed                                                                */
/* ------------------------------------------------------------------------------------ */

/** The fields of LanguageWordings that list wordings (the others say how the language orders them). */
type WordingField = Exclude<keyof LanguageWordings, 'contactAfter' | 'articles'>;

const SMALL_TALK_ROLES: ReadonlySet<Role> = new Set<Role>(['greeting', 'thanks', 'goodbye', 'acknowledgement', 'smallTalkFiller']);

/** A wording as words, with what it is and the language it belongs to. A word ending in `*` matches any word it begins. */
interface Phrase {
  words: string[];
  role: Role;
  /** The language it is listed under (null: language-neutral), which says how that language orders a request. */
  language: string | null;
  /** The language it tells the customer writes in: `language`, unless other languages list the same wording ("hej", "agent", "perfekt"). */
  tells: string | null;
}

/** Wordings by their first word (for a stem, by the stem with its `*`), longest first. */
type PhraseIndex = Map<string, Phrase[]>;

/** What each field's wordings are: the field's name, except that a list of fillers holds fillers. The one list of roles. */
const ROLE_OF_FIELD = {
  greeting: 'greeting',
  thanks: 'thanks',
  goodbye: 'goodbye',
  acknowledgement: 'acknowledgement',
  praise: 'acknowledgement',
  smallTalkFillers: 'smallTalkFiller',
  person: 'person',
  someone: 'someone',
  contact: 'contact',
  contactFollowing: 'contactFollowing',
  want: 'want',
  askFor: 'askFor',
  please: 'please',
  personFillers: 'personFiller',
  notPerson: 'notPerson',
  negation: 'negation',
  exists: 'exists',
  available: 'available',
  callback: 'callback',
  machine: 'machine',
  stop: 'stop',
  me: 'me',
  reachOut: 'reachOut',
  channel: 'channel',
  topic: 'topic',
  alternative: 'alternative',
  asksHow: 'asksHow',
  asksWhether: 'asksWhether',
  asksWhat: 'asksWhat',
  contrast: 'contrast',
  condition: 'condition',
  nobody: 'nobody',
  fromTeam: 'fromTeam',
  met: 'met',
} as const satisfies Record<WordingField, string>;
type Role = (typeof ROLE_OF_FIELD)[WordingField];

function buildIndex(): PhraseIndex {
  const index: PhraseIndex = new Map();
  const add = (wordings: LanguageWordings, language: string | null) => {
    for (const [field, role] of Object.entries(ROLE_OF_FIELD) as [WordingField, Role][]) {
      for (const wording of wordings[field] ?? []) {
        const words = wording.split(/\s+/u).flatMap((part) => (part.endsWith('*') ? [wordsOf(part.slice(0, -1)).join('') + '*'] : wordsOf(part)));
        if (words.length === 0) continue;
        const list = index.get(words[0]!) ?? [];
        list.push({ words, role, language, tells: language });
        index.set(words[0]!, list);
      }
    }
  };
  add(NEUTRAL, null);
  for (const [language, wordings] of Object.entries(WORDINGS)) add(wordings, language);
  // A wording listed under several languages ("hej", "agent", "perfekt") does not tell which one the customer writes.
  const languagesOf = new Map<string, Set<string | null>>();
  const keyOf = (phrase: Phrase) => `${SMALL_TALK_ROLES.has(phrase.role) ? 'small talk' : phrase.role === 'contrast' ? 'contrast' : 'person'}:${phrase.words.join(' ')}`;
  for (const phrase of [...index.values()].flat()) languagesOf.set(keyOf(phrase), (languagesOf.get(keyOf(phrase)) ?? new Set()).add(phrase.language));
  for (const list of index.values()) {
    for (const phrase of list) if (languagesOf.get(keyOf(phrase))!.size > 1) phrase.tells = null;
    list.sort((a, b) => b.words.length - a.words.length);
  }
  return index;
}

const INDEX = buildIndex();

/**
 * The same wordings by their first word, split by their second, so that a word many wordings
 * start with ("a", "je", "人") costs only those that can match what follows it: each unit is
 * compared with a few wordings, whatever the message ("a a a …" included).
 */
interface FollowIndex {
  /** One-word wordings, and those whose second word is a stem. */
  open: Phrase[];
  /** The others, by their second word. */
  bySecond: Map<string, Phrase[]>;
}

const FOLLOW_INDEX = new Map<string, FollowIndex>();
for (const [first, phrases] of INDEX) {
  const entry: FollowIndex = { open: [], bySecond: new Map() };
  for (const phrase of phrases) {
    const second = phrase.words[1];
    if (second === undefined || second.endsWith('*')) entry.open.push(phrase);
    else if (entry.bySecond.has(second)) entry.bySecond.get(second)!.push(phrase);
    else entry.bySecond.set(second, [phrase]);
  }
  FOLLOW_INDEX.set(first, entry);
}
/** The longest stem a `*` wording has; a word's beginnings are looked up up to this length. */
const LONGEST_STEM = Math.max(...[...INDEX.values()].flat().flatMap((phrase) => phrase.words.filter((word) => word.endsWith('*')).map((word) => word.length - 1)));

/** Every spaced word the wordings use (stems without their `*`), for typo correction; those that name a person; those of small talk. */
const VOCABULARY = new Set<string>();
const PERSON_WORDS = new Set<string>();
/** Ways of reaching the customer: read through two letters swapped only ("emial me"; a wrong letter makes Turkish "yapabilir", can do, "yazabilir", can write). */
const REACHING_WORDS = new Set<string>();
const SMALL_TALK_WORDS = new Set<string>();
for (const phrases of INDEX.values()) {
  for (const phrase of phrases) {
    for (const word of phrase.words) {
      VOCABULARY.add(word.replace(/\*$/u, ''));
      if (phrase.role === 'person' || phrase.role === 'someone') PERSON_WORDS.add(word.replace(/\*$/u, ''));
      if (phrase.role === 'reachOut') REACHING_WORDS.add(word.replace(/\*$/u, ''));
      if (SMALL_TALK_ROLES.has(phrase.role)) SMALL_TALK_WORDS.add(word);
    }
  }
}

const LONGEST_VOCABULARY_WORD = Math.max(...[...VOCABULARY].map((word) => word.length));

/** Words shorter than this are never corrected ("great" is one letter from "treat"), and those of exactly this length only into a person-word ("humen", "agnet"). */
const MIN_TYPO_LENGTH = 5;

/** A person-word with a letter left out is read as that word only from this length ("opertor"; not "manger", "fiance", "humane"). */
const MIN_DROPPED_LETTER_LENGTH = 7;

/**
 * Vocabulary words by each form with one letter left out (and whole), for finding a
 * word one typo away in a few lookups (the "symmetric delete" method).
 */
const BY_DELETION = new Map<string, string[]>();
for (const word of VOCABULARY) {
  if (word.length < MIN_TYPO_LENGTH || UNSPACED.test(word)) continue;
  for (const variant of new Set([word, ...deletionsOf(word)])) {
    const list = BY_DELETION.get(variant) ?? [];
    list.push(word);
    BY_DELETION.set(variant, list);
  }
}

function deletionsOf(word: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < word.length; i++) out.push(word.slice(0, i) + word.slice(i + 1));
  return out;
}

/** True when `a` becomes `b` by one insertion, deletion, substitution or swap of neighbours. */
function oneEditApart(a: string, b: string): boolean {
  if (a === b) return false;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** The vocabulary word a message word is a one-letter typo of, or the word itself. */
function corrected(word: string, work: Work): string {
  if (word.length === MIN_TYPO_LENGTH - 1 && !VOCABULARY.has(word)) return swappedSmallTalk(word, work);
  // A word longer than every wording cannot be one letter from one (and its variants would cost its length squared).
  if (word.length < MIN_TYPO_LENGTH || word.length > LONGEST_VOCABULARY_WORD + 1 || VOCABULARY.has(word)) return word;
  const candidates = new Set<string>();
  for (const variant of [word, ...deletionsOf(word)]) {
    work.steps += variant.length;
    for (const candidate of BY_DELETION.get(variant) ?? []) candidates.add(candidate);
  }
  for (const candidate of candidates) {
    work.steps += 1;
    if (!oneEditApart(word, candidate)) continue;
    // Small talk must be the whole message, so a typo there is safe to read. A person-word only
    // by a swapped or wrong letter inside it ("humen", "agnet"): "humans" (humano), "agents"
    // (agente) and "advise" (adviser) are other words.
    if (SMALL_TALK_WORDS.has(candidate) && word.length > MIN_TYPO_LENGTH) return candidate;
    if (REACHING_WORDS.has(candidate) && word.length === candidate.length && [...word].sort().join('') === [...candidate].sort().join('')) return candidate;
    if (PERSON_WORDS.has(candidate) && word[0] === candidate[0] && word.at(-1) === candidate.at(-1)) {
      // Or by a letter left out inside a longer one ("opertor", "mitarbeitr"): a letter added ("humans") or cut from the end ("agen") makes other words.
      if (word.length === candidate.length || (word.length === candidate.length - 1 && word.length >= MIN_DROPPED_LETTER_LENGTH)) return candidate;
    }
  }
  return word;
}

/** A four-letter word with two neighbours swapped into a small-talk word ("dnak" → "dank", "tahx"); small talk must be the whole message, so this is safe to read. */
function swappedSmallTalk(word: string, work: Work): string {
  for (let i = 0; i + 1 < word.length; i++) {
    work.steps += 1;
    const swapped = word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
    // Not into a negation: "puls" (pulls) is no "plus".
    if (SMALL_TALK_WORDS.has(swapped) && !NEGATION_WORDS.has(swapped)) return swapped;
  }
  return word;
}

/* ------------------------------------------------------------------------------------ */
/* Matching                                                                             */
/* ------------------------------------------------------------------------------------ */

/** The wordings of a role that start at `at` (longest first), stems included. */
function phrasesAt(units: readonly Unit[], at: number, roles: ReadonlySet<Role>, work: Work): Phrase[] {
  const unit = units[at]!;
  if (unit === CLAUSE) return [];
  const keys = [unit.word];
  if (!unit.unspaced) for (let length = Math.min(LONGEST_STEM, unit.word.length); length >= 2; length--) keys.push(unit.word.slice(0, length) + '*');
  const next = units[at + 1];
  const found: Phrase[] = [];
  for (const key of keys) {
    const entry = FOLLOW_INDEX.get(key);
    if (!entry) continue;
    const followed = next && next !== CLAUSE ? entry.bySecond.get(next.word) : undefined;
    for (const phrases of [entry.open, followed ?? []]) {
      for (const phrase of phrases) {
        work.steps += 1;
        if (roles.has(phrase.role) && matchesAt(units, at, phrase, work)) found.push(phrase);
      }
    }
  }
  // At one length, a word's acts before its fillers: "tak" is Danish thanks and a Czech filler.
  const fillerLast = (phrase: Phrase) => (phrase.role === 'smallTalkFiller' ? 1 : 0);
  return found.sort((a, b) => b.words.length - a.words.length || fillerLast(a) - fillerLast(b));
}

function matchesAt(units: readonly Unit[], at: number, phrase: Phrase, work: Work): boolean {
  if (at + phrase.words.length > units.length) return false;
  for (let k = 0; k < phrase.words.length; k++) {
    work.steps += 1;
    const word = phrase.words[k]!;
    const unit = units[at + k]!;
    if (unit === CLAUSE) return false;
    if (word.endsWith('*') ? !unit.word.startsWith(word.slice(0, -1)) : unit.word !== word) return false;
  }
  return true;
}

/** Spaced words with a typo corrected; unspaced characters as they are. */
function correctedUnits(units: readonly Unit[], work: Work): Unit[] {
  return units.map((unit) => (unit === CLAUSE || unit.unspaced ? unit : { word: corrected(unit.word, work), unspaced: false }));
}

/** When small talk combines acts, the one that says most about where the conversation is: "ok thanks bye" ends it. */
const SMALL_TALK_PRECEDENCE: SmallTalkAct[] = ['goodbye', 'thanks', 'greeting', 'acknowledgement'];
/** Small talk is short: a longer message says something else too. */
const MAX_SMALL_TALK_UNITS = 24;

/** The small-talk act a message is when every word of it is small talk, else null. */
function smallTalkOf(units: readonly Unit[], work: Work): RecognizedAct | null {
  const words = units.filter((unit) => unit !== CLAUSE);
  if (words.length === 0 || words.length > MAX_SMALL_TALK_UNITS) return null;
  // Read the words as small-talk wordings end to end, trying every wording at each reached word
  // ("どうも、ありがとうございました" is "どうも" + "ありがとうございました", not "どうもありがとう" + a rest).
  const reachedBy: (Phrase | undefined)[] = new Array(words.length + 1);
  const startOf: number[] = new Array(words.length + 1);
  for (let at = 0; at < words.length; at++) {
    if (at > 0 && !reachedBy[at]) continue;
    for (const phrase of phrasesAt(words, at, SMALL_TALK_ROLES, work)) {
      const end = at + phrase.words.length;
      if (reachedBy[end]) continue;
      reachedBy[end] = phrase;
      startOf[end] = at;
    }
  }
  if (!reachedBy[words.length]) return null;
  const acts: Phrase[] = [];
  for (let end = words.length; end > 0; end = startOf[end]!) if (reachedBy[end]!.role !== 'smallTalkFiller') acts.unshift(reachedBy[end]!);
  return smallTalkActOf(acts);
}

/** The act small-talk wordings make together, and the language they tell; null when they are fillers only. */
function smallTalkActOf(acts: readonly Phrase[]): RecognizedAct | null {
  const act = SMALL_TALK_PRECEDENCE.find((candidate) => acts.some((phrase) => phrase.role === candidate));
  if (!act) return null;
  const language = acts.find((phrase) => phrase.role === act && phrase.tells)?.tells ?? acts.find((phrase) => phrase.tells)?.tells ?? null;
  return { act, language };
}

/** Every role that is not small talk: what a request for a person is read from. */
const PERSON_ROLES: ReadonlySet<Role> = new Set<Role>(Object.values(ROLE_OF_FIELD).filter((role) => !SMALL_TALK_ROLES.has(role) && role !== 'contrast' && role !== 'fromTeam'));
/** Read only right after someone (someoneOfATeam), so that "from" shadows no filler ("do", "da"). */
const FROM_TEAM: ReadonlySet<Role> = new Set<Role>(['fromTeam']);
/** How many units apart a person and a wording of contact may be, within one clause. */
const CONTACT_REACH = 6;
/** The same for Chinese, Japanese and Korean, where a unit is one character and one-character wordings ("转", "找") are common inside other words. */
const UNSPACED_CONTACT_REACH = 3;
/** How many units a wording of wanting may stand before its person ("I want a real human"). */
const WANT_REACH = 3;
/** How many units before a wording of contact a negation turns it around ("I do not want to talk"). */
const NEGATION_REACH = 3;

interface Found {
  phrase: Phrase;
  start: number;
  end: number;
}

/**
 * The longest wordings a person request is made of that start at each unit (undefined
 * where none does): all of that length, since a word may be one thing in one language
 * and another in the next ("ya": Spanish "now", French "there is").
 */
type WordingsAt = readonly (readonly Found[] | undefined)[];

function personWordingsAt(units: readonly Unit[], work: Work): WordingsAt {
  const at: Found[][] = new Array(units.length);
  for (let i = 0; i < units.length; i++) {
    const phrases = phrasesAt(units, i, PERSON_ROLES, work);
    const longest = phrases[0]?.words.length;
    if (longest) at[i] = phrases.filter((phrase) => phrase.words.length === longest).map((phrase) => ({ phrase, start: i, end: i + longest }));
  }
  for (let i = 0; i < units.length; i++) {
    const team = someoneOfATeam(units, at, i, work);
    if (team) at[i] = [team];
  }
  return at;
}

/** The most words a team's name is read as ("anyone from the skincare team around?"). */
const MAX_TEAM_NAME_WORDS = 2;

/**
 * Someone of a team the lists do not name, read as a person of the shop: someone, a wording of
 * its language for "from" and a word or two that no wording reads ("anyone from billing
 * available?", "qualcuno del magazzino mi può contattare", "kogoś z działu faktur").
 */
function someoneOfATeam(units: readonly Unit[], at: WordingsAt, start: number, work: Work): Found | undefined {
  const someone = at[start]?.find((wording) => wording.phrase.role === 'someone');
  if (!someone || units[start]!.unspaced || someone.end >= units.length) return undefined;
  const from = phrasesAt(units, someone.end, FROM_TEAM, work).find((phrase) => phrase.language === someone.phrase.language);
  if (!from) return undefined;
  const fromEnd = someone.end + from.words.length;
  const teamWords: string[] = [];
  for (let i = fromEnd; i < units.length && teamWords.length < MAX_TEAM_NAME_WORDS; i++) {
    const unit = units[i]!;
    if (unit === CLAUSE || unit.unspaced || at[i] !== undefined || isFigure(unit)) break;
    teamWords.push(unit.word);
  }
  if (teamWords.length === 0) return undefined;
  const words = [...someone.phrase.words, ...from.words, ...teamWords];
  return { phrase: { words, role: 'person', language: someone.phrase.language, tells: someone.phrase.tells }, start, end: fromEnd + teamWords.length };
}

/**
 * True when a wording covers the person-word and is no person ("human resources", "人工智能").
 * Not the same words listed as a person in another language: English "personal" is Swedish "personal" (staff).
 */
function coversAsNoPerson(other: Found, person: Found): boolean {
  return other.phrase.role === 'notPerson' && other.start <= person.start && other.end > person.start && !sameWordsElsewhere(other, person);
}

/** True when two wordings are the same words listed under different languages. */
function sameWordsElsewhere(a: Found, b: Found): boolean {
  return a.start === b.start && a.end === b.end && a.phrase.language !== b.phrase.language;
}

/** The wording at a unit that has one of the roles, if any. */
function wordingWith(at: WordingsAt, i: number, roles: ReadonlySet<Role>): Found | undefined {
  return at[i]?.find((found) => roles.has(found.phrase.role));
}

/** The longest wording (in units) of any role, so a look around a person reaches every wording that ends near it. */
const LONGEST_WORDING = Math.max(...[...INDEX.values()].flat().map((phrase) => phrase.words.length));
/** A person named alone stands in a short clause ("a real human please"). */
const MAX_ALONE_CLAUSE = 8;

/**
 * The request for a person in a message, if any. Each person-word looks at the
 * wordings within a fixed reach around it in its own clause, so the work per word is
 * bounded and the whole pass linear.
 */
function personRequestOf(units: readonly Unit[], at: WordingsAt, clauseOf: readonly number[], work: Work): RecognizedAct | null {
  for (let start = 0; start < units.length; start++) {
    const person = wordingWith(at, start, PERSON_OR_SOMEONE);
    if (!person) continue;
    const { end, phrase } = person;
    const near: Found[] = [];
    let cancelled = false;
    for (let i = Math.max(0, start - CONTACT_REACH - LONGEST_WORDING); i < Math.min(units.length, end + CONTACT_REACH); i++) {
      work.steps += 1;
      if (clauseOf[i] !== clauseOf[start]) continue;
      for (const other of at[i] ?? []) {
        if (other === person) continue;
        if (coversAsNoPerson(other, person)) cancelled = true;
        near.push(other);
      }
    }
    // "how do I call customer service?": asks about reaching a person, not for one ("tem como falar…", is there a way to talk…, asks for one);
    // "how can I talk to a human?" asks for one, but not by phone or mail ("comment joindre le service client par téléphone ?").
    const asks = (role: Role) => near.some((other) => other.phrase.role === role && other.end <= start && !near.some((longer) => longer.start < other.start && longer.end > other.start));
    const asksHow = asks('asksHow');
    const human = namesHuman(person, units);
    if (cancelled || asks('asksWhether') || (asksHow && !talksTo(near) && !human)) continue;
    // A "stop" that holds a negation, with no bot to turn away, turns the person away: "non ho voglia di parlare con un operatore".
    if (near.some((other) => negatingStop(other) && other.end <= start) && !near.some((other) => other.phrase.role === 'machine')) continue;
    // The person's own word is no negation of it (Norwegian "noen" is read "non", French and
    // Italian not), nor is one right after the bot, which it turns away ("봇 싫어요 사람 불러주세요").
    const negatedBefore = (wording: Found, position = wording.start) =>
      !customerContactAfterWord(wording, units, at) &&
      near.some(
        (other) =>
          other.phrase.role === 'negation' &&
          !withoutAWording(other, at) &&
          // Before it, or holding it ("nie chcę": a want inside its own negation).
          ((other.end <= position && position - other.end < NEGATION_REACH) || (other !== wording && other.start <= wording.start && other.end >= wording.end && other.end > other.start + 1)) &&
          !(other.start < end && other.end > start) &&
          !near.some((machine) => machine.phrase.role === 'machine' && machine.end === other.start) &&
          isNegation(other, wording, near),
      );
    const reach = units[start]!.unspaced ? UNSPACED_CONTACT_REACH : CONTACT_REACH;
    const before = (other: Found, within: number) => other.end <= start && start - other.end < within;
    // Chinese, Japanese and Korean share characters: "人" (Japanese someone) with "要" (Chinese want) is Chinese "主要敌人".
    const sameScriptLanguage = (other: Found) => !units[start]!.unspaced || other.phrase.language === phrase.language;
    const contact = near.find(
      (other) =>
        other.phrase.role === 'contact' &&
        sameScriptLanguage(other) &&
        (before(other, reach)
          ? introduced(other.phrase, person, units, near)
          : other.start >= end && other.start - end < reach && mayFollow(other, person, units, near, at, work)),
    ) ??
      near.find((other) => other.phrase.role === 'contactFollowing' && other.start >= end && other.start - end < WANT_REACH) ??
      // "jemanden, mit dem ich sprechen kann": the relative clause right after the person's.
      (units[end] === CLAUSE ? wordingWith(at, end + 1, CONTACT_FOLLOWING) : undefined);
    // The verb tells the language better than the person: "operatöre bağlayın" is Turkish, though "operatore" is Italian too.
    const askedBy = (wording: Found): RecognizedAct => ({ act: 'ask_for_person', language: wording.phrase.tells ?? phrase.tells });
    if (contact && !negatedBefore(contact, Math.min(contact.start, start))) return askedBy(contact);
    const callback = near
      .filter((other) => CALLBACK.has(other.phrase.role) && sameScriptLanguage(other) && (before(other, reach) || (other.start >= end && other.start - end < reach)))
      .map((other) => asCallback(other, at, clauseOf))
      .find((found) => found !== undefined);
    // Not "the agent didn't call me back": a negation before either of the two turns it around.
    const callbackNegated = callback && (negatedBefore(callback) || negatedBefore(callback, start));
    if (callback && !callbackNegated && endsClause(units, Math.max(end, callback.end), at, work, true)) return askedBy(callback);
    // Reaching a human, asked how ("Wie erreiche ich bei euch einen Menschen?"): as against the bot, asking how to reach one asks for one.
    const reachingHuman = human && asksHow ? near.find((other) => other.phrase.role === 'reachOut' && sameScriptLanguage(other) && before(other, reach)) : undefined;
    if (reachingHuman && !negatedBefore(reachingHuman)) return askedBy(reachingHuman);
    // "is anyone available?", "yetkili biri var mı?", "客服在吗"; where the verb comes last, "insan istiyorum".
    const next = firstAfterFillers(
      units,
      end,
      at,
      work,
      (wording) => (wording.phrase.role === 'available' || (wording.phrase.role === 'want' && verbLast(wording.phrase))) && sameScriptLanguage(wording),
    );
    if (next && endsClause(units, next.end, at, work)) return askedBy(next);
    // Someone only asked for ("can I get someone on the line?"): wanting someone is wanting it to do something ("I need someone to sign for it").
    const wanted = phrase.role === 'someone' ? ASK_FOR : WANTING;
    const want = near.find((other) => wanted.has(other.phrase.role) && before(other, WANT_REACH));
    // A human asked for may be asked for about something, as a callback is ("can i get a human to help me with a return").
    if (want && !negatedBefore(want) && endsClause(units, end, at, work, human)) return askedBy(want);
    if (phrase.role === 'someone') continue;
    const exists = near.find(
      (other) => other.phrase.role === 'exists' && sameScriptLanguage(other) && firstAfterFillers(units, other.end, at, work, (wording) => wording === person),
    );
    if (exists && !negatedBefore(exists) && endsClause(units, end, at, work)) return askedBy(exists);
    if (clauseHoldsOnly(units, person, clauseOf, at, ALONE_ROLES, work)) return { act: 'ask_for_person', language: phrase.tells };
  }
  return callbackAsked(units, at, clauseOf, work) ?? botTurnedAway(units, at, clauseOf, work);
}

/** A callback asked for in a clause of its own, with no person named ("Rückruf bitte", "I'd like a callback please", "kunt u mij terugbellen?", "can you email me?"). */
function callbackAsked(units: readonly Unit[], at: WordingsAt, clauseOf: readonly number[], work: Work): RecognizedAct | null {
  for (let start = 0; start < units.length; start++) {
    const wording = wordingWith(at, start, CALLBACK);
    const callback = wording && asCallback(wording, at, clauseOf);
    if (callback && clauseHoldsOnly(units, callback, clauseOf, at, CALLBACK_ALONE_ROLES, work)) return { act: 'ask_for_person', language: callback.phrase.tells };
  }
  return null;
}

/** True when the wordings (of one clause) talk to someone, not reach one by phone or mail ("how can I talk to a human?", not "comment joindre le service client par téléphone ?"). */
function talksTo(wordings: readonly Found[]): boolean {
  return (
    wordings.some((other) => other.phrase.role === 'contact' || other.phrase.role === 'contactFollowing') &&
    !wordings.some((other) => other.phrase.role === 'reachOut' && !insideContact(other, wordings))
  );
}

/** A way of reaching inside a longer wording of contact is part of it ("hoe kom ik in contact met", English "contact"). */
function insideContact(wording: Found, near: readonly Found[]): boolean {
  return near.some((longer) => longer.phrase.role === 'contact' && longer.start <= wording.start && longer.end >= wording.end && longer.end - longer.start > wording.end - wording.start);
}

/**
 * The wording as a callback: a wording of one as it is, a wording of reaching out only
 * with the customer as its object, before it in its clause ("kann mich jemand anrufen")
 * or right after it ("email me"), which it then reaches to.
 */
function asCallback(wording: Found, at: WordingsAt, clauseOf: readonly number[]): Found | undefined {
  if (wording.phrase.role !== 'reachOut') return wording;
  const after = wordingWith(at, wording.end, ME);
  if (after) return { ...wording, end: after.end };
  for (let i = Math.max(0, wording.start - CONTACT_REACH); i < wording.start; i++) {
    if (clauseOf[i] !== clauseOf[wording.start]) continue;
    const me = wordingWith(at, i, ME);
    if (me && me.end <= wording.start) return wording;
  }
  return undefined;
}

/** True when the wording's language puts the verb last ("insan istiyorum", "オペレーターと話したい"). */
function verbLast(phrase: Phrase): boolean {
  return Boolean(phrase.language && WORDINGS[phrase.language]?.contactAfter);
}

/**
 * The first wording after `from` in its clause that `accepts`, with nothing but words
 * that stand around a person ("a", "real", "there") before it; a short walk.
 */
function firstAfterFillers(units: readonly Unit[], from: number, at: WordingsAt, work: Work, accepts: (wording: Found) => boolean): Found | undefined {
  for (let i = from, steps = 0; i < units.length && units[i] !== CLAUSE && steps < MAX_ALONE_CLAUSE; steps++) {
    work.steps += 1;
    // A word may be both ("humano": Spanish a human, and "real" after a person): what is looked for wins.
    const accepted = at[i]?.find(accepts);
    if (accepted) return accepted;
    const filler = wordingWith(at, i, PERSON_FILLER);
    if (!filler) return undefined;
    i = filler.end;
  }
  return undefined;
}

/**
 * A request for a person made by turning the bot away, in a clause that ends with the bot:
 * after a "stop" ("stop the bot", "basta bot"), before one where the verb comes last ("bot
 * değil"), or after a negated wording of contact or wanting ("I don't want to talk to a bot",
 * "ich möchte keinen Bot"), or refused in a clause of its own ("no bot please", "kein Bot
 * bitte"). "I'm not a bot" asks for nothing.
 */
function botTurnedAway(units: readonly Unit[], at: WordingsAt, clauseOf: readonly number[], work: Work): RecognizedAct | null {
  for (let start = 0; start < units.length; start++) {
    const machine = wordingWith(at, start, MACHINE);
    if (!machine) continue;
    const asked = (wording: Found): RecognizedAct => ({ act: 'ask_for_person', language: wording.phrase.tells ?? machine.phrase.tells });
    const after = wordingWith(at, machine.end, STOP);
    if (after && verbLast(after.phrase) && endsClause(units, after.end, at, work)) return asked(after);
    const near: Found[] = [];
    for (let i = Math.max(0, start - CONTACT_REACH - LONGEST_WORDING); i < Math.min(units.length, machine.end + CONTACT_REACH); i++) {
      work.steps += 1;
      if (clauseOf[i] === clauseOf[start]) for (const other of at[i] ?? []) if (other.end <= start || other.start >= machine.end) near.push(other);
    }
    // Where the verb comes last, after the bot: "ich will nicht mit einem Bot schreiben", "botla konuşmak istemiyorum", "我不想和机器人说话".
    const verb = near.find((other) => TURNING_ROLES.has(other.phrase.role) && verbLast(other.phrase) && other.start >= machine.end && other.start - machine.end < NEGATION_REACH);
    const negationOf = (wording: Found) =>
      near.find(
        (other) =>
          (other.phrase.role === 'stop' || (other.phrase.role === 'negation' && isNegation(other, wording, near))) &&
          ((other.end <= start && start - other.end < CONTACT_REACH) || (other.start >= wording.end && other.start - wording.end < NEGATION_REACH)),
      );
    const verbNegation = verb && negationOf(verb);
    if (verb && verbNegation && endsClause(units, Math.max(verb.end, verbNegation.end), at, work)) return asked(verb);
    if (!endsClause(units, machine.end, at, work)) continue;
    const stop = near.find((other) => other.phrase.role === 'stop' && other.end <= start && start - other.end < NEGATION_REACH);
    if (stop) return asked(stop);
    // A clause of nothing but the bot refused: "no bot please", "kein Bot bitte", "pas de robot", "not a bot!" (a "please" that holds the bot).
    const refusal =
      near.find((other) => other.phrase.role === 'negation' && other.end <= start && start - other.end < NEGATION_REACH && isNegation(other, machine, near)) ??
      at.slice(Math.max(0, start - NEGATION_REACH), start).flat().find((other) => other?.phrase.role === 'please' && other.end >= machine.end);
    if (refusal && clauseHoldsOnly(units, machine, clauseOf, at, BOT_REFUSED_ROLES, work)) return asked(refusal);
    const negations = near.filter((other) => other.phrase.role === 'negation' && other.end <= start);
    const turnedAway = near.find(
      (other) =>
        TURNING_ROLES.has(other.phrase.role) &&
        other.end <= start &&
        start - other.end < CONTACT_REACH &&
        negations.some(
          (negation) =>
            isNegation(negation, other, near) &&
            ((negation.end <= other.start && other.start - negation.end < NEGATION_REACH) || (negation.start >= other.end && start - negation.end < NEGATION_REACH)),
        ),
    );
    if (turnedAway) return asked(turnedAway);
  }
  return null;
}

/**
 * Whether a negation negates the wording it stands before: when it is a negation in that
 * wording's language, or when its words are nothing else in any language ("en" is
 * Finnish "not" but also Dutch "een", folded); never inside a longer wording ("不" in
 * "能不能", can you, or "有没有", is there).
 */
function isNegation(negation: Found, negated: Found, near: readonly Found[]): boolean {
  if (near.some((other) => other.phrase.role !== 'negation' && other.start < negation.start && other.end > negation.start)) return false;
  const sameWords = near.filter((other) => other.start === negation.start && other.end === negation.end);
  return (
    sameWords.some((other) => other.phrase.role === 'negation' && other.phrase.language === negated.phrase.language) ||
    (sameWords.every((other) => other.phrase.role === 'negation') && !alsoAnArticle(negation))
  );
}

/** A one-word negation that is an article too (Finnish "en", Dutch "een" folded; French "ne"): it negates only wordings of its own language ("hoe kom ik bij een echte medewerker"). */
function alsoAnArticle(negation: Found): boolean {
  return negation.phrase.words.length === 1 && ARTICLES.has(negation.phrase.words[0]!);
}

const WANTING: ReadonlySet<Role> = new Set<Role>(['want', 'askFor']);
const ASK_FOR: ReadonlySet<Role> = new Set<Role>(['askFor']);
const TURNING_ROLES: ReadonlySet<Role> = new Set<Role>(['contact', 'want', 'askFor']);
/** The one-word negations of every language ("not", "nicht", "geen"). */
const NEGATION_WORDS: ReadonlySet<string> = new Set([...INDEX.values()].flat().flatMap((phrase) => (phrase.role === 'negation' && phrase.words.length === 1 ? phrase.words : [])));

/** A "stop" that holds a negation ("geen zin in", "non ho voglia di", "ik praat niet met"): it hides the negation a person after it would be read with. */
function negatingStop(wording: Found): boolean {
  return wording.phrase.role === 'stop' && wording.phrase.words.some((word) => NEGATION_WORDS.has(word));
}
const PERSON_OR_SOMEONE: ReadonlySet<Role> = new Set<Role>(['person', 'someone']);

/**
 * Words that name a human as against the bot, folded: asking how to reach one asks for one ("how do I
 * get hold of an actual human here?", "Wie erreiche ich bei euch einen Menschen?"), where asking how to
 * reach customer service asks for its number ("how do I call customer service?").
 */
const HUMAN_MARKS: ReadonlySet<string> = new Set([
  'human', 'humans', 'actual', 'live', 'real', 'mensch', 'menschen', 'echt', 'echte', 'echten', 'echter', 'personlich', 'mens', 'humano', 'humana',
  'humanos', 'reais', 'humain', 'humaine', 'vrai', 'vraie', 'umano', 'umana', 'reale', 'vero', 'vera', 'czlowiek', 'czlowiekiem', 'czlowieka', 'zywy',
  'zywa', 'zywym', 'prawdziwy', 'prawdziwego', 'prawdziwym', 'prawdziwa', 'prawdziwej', '真人', '活人', '人間', 'ningen', '生身',
]);

/**
 * True when a person-word names a human as against the bot: in its own words ("a live agent", "真人"), or
 * by the word right before or after it ("einen echten Mitarbeiter", "un agente humano").
 */
function namesHuman(wording: Found, units: readonly Unit[]): boolean {
  const beside = [units[wording.start - 1], units[wording.end]].filter((unit): unit is Unit => unit !== undefined && unit !== CLAUSE);
  return (
    wording.phrase.words.some((word) => HUMAN_MARKS.has(word)) ||
    HUMAN_MARKS.has(wording.phrase.words.join('')) ||
    beside.some((unit) => !unit.unspaced && HUMAN_MARKS.has(unit.word))
  );
}
const CONTACT_FOLLOWING: ReadonlySet<Role> = new Set<Role>(['contactFollowing']);
const PERSON_FILLER: ReadonlySet<Role> = new Set<Role>(['personFiller']);
const MACHINE: ReadonlySet<Role> = new Set<Role>(['machine']);
const CALLBACK: ReadonlySet<Role> = new Set<Role>(['callback', 'reachOut']);
const ME: ReadonlySet<Role> = new Set<Role>(['me']);
const STOP: ReadonlySet<Role> = new Set<Role>(['stop']);
/** What a clause that only refuses the bot holds. */
const BOT_REFUSED_ROLES: ReadonlySet<Role> = new Set<Role>(['negation', 'machine', 'please', 'personFiller']);

/**
 * True when a wording of contact may come after its person: its language puts the verb
 * last, and the person follows an article ("einen Mitarbeiter sprechen", "mit einem
 * Menschen reden"; not "Wie viele Menschen sprechen Deutsch?"), or the two make the
 * clause alone ("Mitarbeiter sprechen").
 */
function mayFollow(contact: Found, person: Found, units: readonly Unit[], near: readonly Found[], at: WordingsAt, work: Work): boolean {
  if (!(contact.phrase.language && WORDINGS[contact.phrase.language]?.contactAfter)) return false;
  const startsClause = person.start === 0 || units[person.start - 1] === CLAUSE;
  return introduced(contact.phrase, person, units, near) || (startsClause && contact.start === person.end && endsClause(units, contact.end, at, work));
}

/**
 * True when the person follows an article, a preposition or a wording of contact or
 * wanting (or begins with an article: "einen Menschen"), where the contact's language
 * has articles.
 */
function introduced(contact: Phrase, person: Found, units: readonly Unit[], near: readonly Found[]): boolean {
  const language = contact.language ? WORDINGS[contact.language] : undefined;
  if (units[person.start]!.unspaced || !language?.articles) return true;
  if (person.phrase.words.length > 1 && ARTICLES.has(person.phrase.words[0]!)) return true;
  return near.some((other) => other.end === person.start && INTRODUCING_ROLES.has(other.phrase.role));
}

const INTRODUCING_ROLES: ReadonlySet<Role> = new Set<Role>(['personFiller', 'contact', 'want', 'askFor']);
/** The one-word wordings that stand around a person: articles, prepositions, "real". */
const ARTICLES: ReadonlySet<string> = new Set(
  [...INDEX.values()].flat().flatMap((phrase) => (phrase.role === 'personFiller' && phrase.words.length === 1 ? phrase.words : [])),
);

/**
 * True when nothing but "please" and the like follows a person in its clause ("can I get a
 * human?", "I want a real person not a bot"); after a callback or a human asked for (`about`), a
 * figure too ("call me at 0151 2345678"; not "is customer service available 24/7?"), or what it is
 * about ("can someone call me about my order?").
 */
function endsClause(units: readonly Unit[], end: number, at: WordingsAt, work: Work, about = false): boolean {
  for (let i = end; i < units.length && units[i] !== CLAUSE; ) {
    work.steps += 1;
    if (about && wordingWith(at, i, TOPIC)) return true;
    // "… or just a bot?": the bot offered as the other choice, a few words on, closing the clause.
    const alternative = wordingWith(at, i, ALTERNATIVE);
    if (alternative && botOffered(units, alternative.end, at, work)) return true;
    const wording = wordingWith(at, i, CLOSING_ROLES);
    if (!wording && !(about && isFigure(units[i]!))) return false;
    i = wording ? wording.end : i + 1;
  }
  return true;
}

/** A figure closes a callback as "please" does: the phone number to be called on. */
function isFigure(unit: Unit): boolean {
  return /^\d+$/u.test(unit.word);
}

const CLOSING_ROLES: ReadonlySet<Role> = new Set<Role>(['please', 'personFiller', 'available', 'channel']);
const TOPIC: ReadonlySet<Role> = new Set<Role>(['topic']);
const ALTERNATIVE: ReadonlySet<Role> = new Set<Role>(['alternative']);
/** How many words may stand between "or" and the bot ("or is it just a bot", "o solo es un bot"). */
const ALTERNATIVE_REACH = 4;

/** True when a bot follows within a few words and closes the clause ("… or only bots?", "… ou c'est un robot"). */
function botOffered(units: readonly Unit[], from: number, at: WordingsAt, work: Work): boolean {
  for (let i = from; i < Math.min(units.length, from + ALTERNATIVE_REACH + 1) && units[i] !== CLAUSE; i++) {
    work.steps += 1;
    const machine = wordingWith(at, i, MACHINE);
    if (machine) return endsClause(units, machine.end, at, work);
  }
  return false;
}

/** Each unit's clause number. */
function clauseNumbers(units: readonly Unit[]): number[] {
  let clause = 0;
  return units.map((unit) => (unit === CLAUSE ? ++clause : clause));
}

/**
 * Each unit's negation scope: its clause, also ended by a space between two characters of an
 * unspaced script, and by each wording of asking for or of putting the customer through after a
 * word no wording holds, so that a negation before one does not reach the request typed on after
 * a problem ("le formulaire marche pas pouvez vous me passer quelqu'un", "el formulario no
 * funciona pásame con alguien"); "je ne peux pas parler à un humain" keeps the "pas" after its "peux".
 */
function negationScopes(units: readonly Unit[], askingStarts: ReadonlySet<number>): number[] {
  let scope = 0;
  return units.map((unit, i) => (unit === CLAUSE || unit.afterSpace || askingStarts.has(i) ? ++scope : scope));
}

/**
 * True when the wording's clause is short and holds nothing but it and wordings of the
 * roles: a person named alone ("a real human", "Mitarbeiter bitte", "人工客服"), a
 * callback asked for ("Rückruf bitte").
 */
function clauseHoldsOnly(units: readonly Unit[], wording: Found, clauseOf: readonly number[], at: WordingsAt, roles: ReadonlySet<Role>, work: Work): boolean {
  const clause = clauseOf[wording.start];
  let first = wording.start;
  while (first > 0 && clauseOf[first - 1] === clause && units[first - 1] !== CLAUSE && wording.start - first < MAX_ALONE_CLAUSE) first--;
  let last = wording.end;
  while (last < units.length && units[last] !== CLAUSE && last - wording.end < MAX_ALONE_CLAUSE) last++;
  if ((first > 0 && units[first - 1] !== CLAUSE) || (last < units.length && units[last] !== CLAUSE)) return false;
  // Walk the clause wording by wording: each must be of the roles. After a callback, what it is about may follow ("call me back about the invoice").
  for (let i = first; i < last; ) {
    work.steps += 1;
    if (i >= wording.end && roles.has('callback') && wordingWith(at, i, TOPIC)) return true;
    const next = i === wording.start ? wording : wordingWith(at, i, roles);
    if (!next && !(roles.has('channel') && isFigure(units[i]!))) return false;
    i = next ? next.end : i + 1;
  }
  return true;
}

const ALONE_ROLES: ReadonlySet<Role> = new Set<Role>(['person', 'please', 'personFiller']);
const CALLBACK_ALONE_ROLES: ReadonlySet<Role> = new Set<Role>(['callback', 'please', 'personFiller', 'want', 'askFor', 'person', 'someone', 'exists', 'me', 'channel']);

/**
 * The act a whole message is, or null when it asks or tells anything else (it then goes to search).
 *
 * A request for a person wins over everything else in the message ("my parcel is
 * broken, I want to talk to a human"); small talk must be the whole message
 * ("ok thanks bye", "super, danke dir!"), and when it combines acts the returned one is
 * the goodbye, else the thanks, else the greeting, else the acknowledgement.
 */
export function recognizeConversationAct(message: string): RecognizedAct | null {
  return recognize(message, { steps: 0 });
}

/** The steps `recognizeConversationAct` takes on a message (for showing that they grow linearly with its length). */
export function recognitionSteps(message: string): number {
  const work = { steps: 0 };
  recognize(message, work);
  return work.steps;
}

/**
 * The most of a message that is read: a request for a person is made at its start or its
 * end ("…, I want to talk to a human"), and a long message is no small talk. Keeps a
 * message of the service's largest allowed size (100,000 characters) from costing a
 * second of blocked process (it took 0.8 s of Chinese characters read whole).
 */
const READ_MAX_CHARS = 2000;

function recognize(message: string, work: Work): RecognizedAct | null {
  if (typeof message !== 'string') return null;
  const text = boundedSearchText(message, READ_MAX_CHARS);
  const units = unitsRead(text, work);
  if (units.length === 0) return smileysOnly(text.replace(HAPPY_EMOTICON, ' 🙂 '), work) ? { act: 'acknowledgement', language: null } : null;
  const at = personWordingsAt(units, work);
  const clauseOf = clauseNumbers(units);
  return (
    personRequestOf(units, at, clauseOf, work) ??
    smallTalkOf(units, work) ??
    learnedRequestOf(text, units, at, clauseOf, work) ??
    learnedSmallTalkOf(text, units, at, work)
  );
}

/** The units a bounded message is read as, typos corrected: by the wordings and, alike in training and in use, by the model. */
function unitsRead(text: string, work: Work): Unit[] {
  return correctedUnits(unitsOf(text, work), work);
}

/* ------------------------------------------------------------------------------------ */
/* The second reader: requests the wordings do not list                                 */
/* ------------------------------------------------------------------------------------ */

const ACTS_MODELS = actsModelFile as ActModels;
const REQUEST_MODEL = readActModel(ACTS_MODELS.askForPerson);

/**
 * The least probability the model must give a request for a person beside an anchor. Trained
 * without each of six parts of the training batches (11–14, 15–17, 18–20, 21–23, 24–27, 28–31)
 * and read on it, the model (five orders averaged) gave 4,257 of 4,456 anchored requests 0.9 or
 * more and 4,123 of them 0.97, and 5 and 4 of 92 anchored look-alikes; a single order gave 4,129
 * at 0.97 with 5. The messages that only tell of a person that set 0.97 before ("a human took over
 * my last order", 0.956 then) are read at 0.14–0.49 now. BENCHMARKS.md, "Acts: … an averaged model".
 */
const LEARNED_REQUEST_THRESHOLD = 0.9;

const QUESTION_END = /[?？؟]\s*$/u;
/** The wordings a request is made of, which a negation before them turns around. */
const NEGATABLE_REQUESTS: ReadonlySet<Role> = new Set<Role>(['callback', 'contact', 'want', 'askFor']);
/** Of those, the ones a negation turns around only with a person or someone in their clause ("I don't want to chat" is no "I don't want a human"). */
const TURNED_AROUND_ONLY_WITH_SOMEONE: ReadonlySet<Role> = new Set<Role>(['contact', 'want', 'askFor']);

/** What the wider anchors are: someone who may answer, or being reached ("voglio parlare cn qualcuno"). */
const WIDE_ANCHORS: ReadonlySet<Role> = new Set<Role>(['person', 'someone', 'contact', 'callback', 'reachOut']);
/** Being reached: what makes "someone" a wider anchor ("chce gadac z kims"; not "humans"). */
const REACHED: ReadonlySet<Role> = new Set<Role>(['contact', 'callback', 'reachOut']);

/**
 * A request for a person the wordings do not list, read by the model (acts-model.ts) in a
 * message the lists left to search. Believed only where the message also holds what a request
 * is made of (learnedRequestAnchor): the model alone read 40 of the published sets' 1,290
 * questions as requests ("¿Con quién se asoció Tesla en 1886?", "Worker node"), and questions
 * that only mention a person share most of a request's pieces ("am I talking to a human?").
 */
function learnedRequestOf(text: string, units: readonly Unit[], at: WordingsAt, clauseOf: readonly number[], work: Work): RecognizedAct | null {
  const anchor = learnedRequestAnchor(text, units, at, clauseOf, work);
  if (!anchor || actProbability(REQUEST_MODEL, featuresOf(units, work)) < LEARNED_REQUEST_THRESHOLD) return null;
  return { act: 'ask_for_person', language: anchor.phrase.tells };
}

/**
 * What a request the model reads must stand beside: a person-word no wording of another
 * meaning covers ("real estate agent"), not asked about (a message ending in "?": "is a real
 * person reading this?") and not negated in its clause ("I do not want to talk to a human"; a
 * negated bot, "别机器人了", is no negation of the person); or being called or written back (asked
 * in a question only of someone of the shop); or, where words are spaced, being put in touch with
 * the customer named ("vous pouvez me transférer à un collègue ?"; not "je voudrais parler de ma
 * commande"), or asked for, in the wording's own language, with a person or someone in its clause
 * ("posso parlare col titolare del negozio?"; not "will a human take over my return?", whose "will"
 * is Dutch "wil"). None of it where its clause asks how or when, or the message whether, nor where a request is
 * turned around: a callback negated, or being put in touch, wanting or being able negated with a
 * person or someone named and no bot ("mail me, I can't chat now" turns the chat away).
 *
 * Failing those, a wider anchor: a person, someone being reached or asked for alone in a clause
 * ("mensch bitte"), someone with a medium in its clause ("どなたか電話で…教えていただけませんか",
 * "telefonisch met iemand doornemen"), or a way of being reached with the customer named (not
 * "Call +1 555 123 4567" after a complaint), anywhere, not negated, in a message that asks no what, who, which, why or
 * how many ("voglio parlare cn qualcuno"; not "¿Quién interpretó a la compañera…?"; "who" right
 * after a person starts a relative clause and asks nothing), and, when it ends in "?", names the
 * customer and a person or someone asked for ("mi trasferisci a un collega?"). A negation or a
 * question word counts only in the language of the wording it stands beside, asking how or when
 * only where it does not follow a way of reaching the customer ("text me when someone is free"),
 * and German "wer" right after the customer named is "someone" ("kann mich ma wer anrufen").
 * A person the customer met or has ("the human on the phone was rude", "my agent will sign for
 * it") anchors nothing unless its clause asks for it in its language.
 */
function learnedRequestAnchor(text: string, units: readonly Unit[], at: WordingsAt, clauseOf: readonly number[], work: Work): Found | undefined {
  const found = at.flatMap((here) => here ?? []);
  work.steps += found.length;
  if (found.some((wording) => wording.phrase.role === 'asksWhether')) return undefined;
  const read = readWordings(units, found, at, clauseOf);
  const inClause = (wording: Found, role: Role) => read.rolesByClause.get(clauseOf[wording.start]!)?.has(role) ?? false;
  // A negation before it in its clause, in its language or in none other; a negated bot ("别机器人了") is no negation of the person.
  const negated = (wording: Found) => {
    // "If nobody calls me today, I cancel": being reached, negated in a condition, is asked for ("if you don't want to talk to a human, use the form" is not).
    if (CALLBACK.has(wording.phrase.role) && read.conditionalScopes.has(read.negationScopeOf[wording.start]!)) return false;
    const ends = read.firstNegationEnd.get(read.negationScopeOf[wording.start]!);
    return ends !== undefined && Math.min(ends.get('*') ?? Infinity, ends.get(wording.phrase.language ?? '*') ?? Infinity) <= wording.start;
  };
  const namesSomeone = (wording: Found) => inClause(wording, 'person') || inClause(wording, 'someone');
  // "the agent didn't call me back", "I do not want to talk to a human": a request turned around. Not chatting,
  // wanting or being able with nobody named, or with the bot named ("mail me, I can't chat now", "não quero resolver por chat",
  // "i dont want to talk to a bot just get me someone"): that turns the chat or the bot away.
  const turnedAround = (wording: Found) =>
    NEGATABLE_REQUESTS.has(wording.phrase.role) &&
    negated(wording) &&
    (!TURNED_AROUND_ONLY_WITH_SOMEONE.has(wording.phrase.role) || (namesSomeone(wording) && !inClause(wording, 'machine')));
  if (found.some(turnedAround)) return undefined;
  const coveredAsNoPerson = (wording: Found) => (read.noPersonAt.get(wording.start) ?? []).some((other) => coversAsNoPerson(other, wording));
  // "the human on the phone was rude", "my agent in Germany will sign for it", "I spoke to an agent": one already met or the customer's own, told of,
  // when nothing in its clause asks for it in its language ("the owner please", "le patron est là ?"; English "will" is Dutch "wil").
  const askedForIn = (wording: Found) => {
    const languages = read.requestingLanguages.get(clauseOf[wording.start]!);
    return languages !== undefined && (wording.phrase.language === null || languages.has(wording.phrase.language) || languages.has(null));
  };
  // One already talked to ("I spoke to an agent yesterday"), fillers between: the units it covers, so that a person inside it is
  // met too ("un conseiller": "conseiller" too).
  const metCovers = new Set<number>();
  for (const other of found) {
    if (other.phrase.role !== 'met') continue;
    const fillersEnd = Math.min(endOfFillers(other.end, at), units.length - 1);
    for (let p = other.end; p <= fillersEnd; p++) {
      for (const person of at[p] ?? []) {
        work.steps += 1;
        if (person.phrase.role === 'person') for (let u = person.start; u < person.end; u++) metCovers.add(u);
      }
    }
  }
  const afterMet = (wording: Found) => metCovers.has(wording.start) && metCovers.has(wording.end - 1);
  const toldOf = (wording: Found) =>
    wording.phrase.role === 'person' && (afterDefiniteArticle(units, wording) || afterPossessive(units, wording) || afterMet(wording)) && !askedForIn(wording);
  const wantedToo = (wording: Found) => read.wantedAt.has(wording.start);
  const asked = QUESTION_END.test(text);
  // A question word of the anchor's language: one of another is often a word of this one ("ho", I have, in Italian, is one elsewhere).
  const asks = (other: Found, anchor: Found) => other.phrase.language === anchor.phrase.language;
  // The customer reached, before it in its clause: "when" after "text me" sets a time ("text me when someone is free"), it asks nothing.
  const afterReachingOut = (other: Found) => (read.firstReachingOutEnd.get(clauseOf[other.start]!) ?? Infinity) <= other.start;
  const askingFor = found.some((wording) => ASKING_FOR.has(wording.phrase.role));
  // Asking for someone, or whether one is free, in a wording's own language: English "will" is Dutch "wil" (want).
  const askingForIn = new Set(found.filter((wording) => ASKING_FOR.has(wording.phrase.role) || wording.phrase.role === 'available').map((wording) => wording.phrase.language));
  // Not one inside a longer wording of asking for ("tem como", is there a way: "Tem como um colega … me atender?").
  const insideLonger = (other: Found) => read.startsInsideWordings.has(other.start);
  // "Please contact me by WhatsApp if anything changes": being reached on a condition is asked for later, not now. In the wording's own
  // language, and not "if possible" (a "please"), "whether" after a verb of finding out ("ring me to see if …", "me ligar pra ver se …")
  // or a condition that is also "when".
  const conditionFollows = (wording: Found) =>
    found.some(
      (other) =>
        other.phrase.role === 'condition' &&
        other.start >= wording.end &&
        clauseOf[other.start] === clauseOf[wording.start] &&
        (other.phrase.language === wording.phrase.language || wording.phrase.language === null) &&
        !FINDING_OUT.has(units[other.start - 1]!.word) &&
        !WHEN_TOO.has(other.phrase.words.join(' ')),
    );
  // Talking to one asked how, as the first reader reads it ("hoe krijg ik iemand aan de lijn"), not reaching one ("wie erreiche ich den Kundenservice").
  const asksHowOf = (anchor: Found) =>
    !(PERSON_OR_SOMEONE.has(anchor.phrase.role) && namesHuman(anchor, units)) &&
    !talksTo(found.filter((other) => clauseOf[other.start] === clauseOf[anchor.start])) &&
    found.some((other) => other.phrase.role === 'asksHow' && clauseOf[other.start] === clauseOf[anchor.start] && asks(other, anchor) && !afterReachingOut(other) && !insideLonger(other));
  const anchor = found.find((wording) => {
    switch (wording.phrase.role) {
      case 'person':
        return !asked && !negated(wording) && !coveredAsNoPerson(wording) && !toldOf(wording);
      case 'callback':
        // Asked, only with someone of the shop to do it, asked for: "could someone email me back?", not "can the courier call me at …?", "Did a colleague of yours call me yesterday?".
        return !negated(wording) && !conditionFollows(wording) && (!asked || inClause(wording, 'person') || (inClause(wording, 'someone') && askingFor));
      case 'contact':
        // With the customer ("connect me"), or asked for with someone to talk to ("posso parlare col titolare del negozio?").
        return !units[wording.start]!.unspaced && !wantedToo(wording) && (inClause(wording, 'me') || (asked && askingForIn.has(wording.phrase.language) && namesSomeone(wording))) && !negated(wording);
      default:
        return false;
    }
  });
  if (anchor) return asksHowOf(anchor) ? undefined : anchor;
  // A clause that is only someone or a person, and "please", "is there" or "available" ("mensch bitte", "Ist da jemand??", "jest tu ktoś?"; not "humans").
  const alone = (wording: Found) =>
    PERSON_OR_SOMEONE.has(wording.phrase.role) && read.onlyAskingClauses.has(clauseOf[wording.start]!) && [...ASKING_ROLES].some((role) => inClause(wording, role));
  // "give me a rate here": a contact that is also a wanting ("give me") is no wider anchor; "someone" is one only with being reached beside it, or alone.
  // Nobody, in a condition, is someone to reach the customer ("如果明天之前还没人联系我，我就直接退单了").
  const nobodyReaching = (wording: Found) =>
    wording.phrase.role === 'nobody' && read.conditionalScopes.has(read.negationScopeOf[wording.start]!) && [...REACHED].some((role) => inClause(wording, role));
  const wide = found.find(
    (wording) =>
      (WIDE_ANCHORS.has(wording.phrase.role) || nobodyReaching(wording)) &&
      !negated(wording) &&
      !coveredAsNoPerson(wording) &&
      !toldOf(wording) &&
      !(wording.phrase.role === 'contact' && wantedToo(wording)) &&
      (wording.phrase.role !== 'someone' || alone(wording) || [...REACHED].some((role) => inClause(wording, role)) || read.mediumClauses.has(clauseOf[wording.start]!)) &&
      (wording.phrase.role !== 'reachOut' || inClause(wording, 'me')) &&
      !(CALLBACK.has(wording.phrase.role) && conditionFollows(wording)),
  );
  if (!wide || asksHowOf(wide)) return undefined;
  // Right after a person or someone, "who" and "qui" start a relative clause ("a colleague who handles warranty claims"), not a question.
  const personEnds = new Set(found.filter((other) => PERSON_OR_SOMEONE.has(other.phrase.role)).map((other) => endOfFillers(other.end, at)));
  // After the customer named, German "wer" is "someone" ("kann mich ma wer anrufen", "dass mich wer anruft").
  const afterMe = new Set(found.filter((other) => other.phrase.role === 'me').map((me) => endOfFillers(me.end, at)));
  const firstReachingOut = Math.min(...read.firstReachingOutEnd.values());
  const afterReachingOutAnywhere = (other: Found) => firstReachingOut <= other.start;
  // After the customer is reached, "what" says what about ("kann mich jemand anrufen und mir erklären, was ich tun muss?"), as "when" sets a time.
  const asksWhat = found.some((other) => other.phrase.role === 'asksWhat' && asks(other, wide) && !personEnds.has(other.start) && !afterMe.has(other.start) && !afterReachingOutAnywhere(other));
  // Asked, only of a person, or of someone asked for, and the customer, or of one alone ("mi trasferisci a un collega?", "¿alguien me puede escribir?", "c'è qualcuno??"; not "alguien lee las reseñas?", "can the courier call me?").
  const ofTheCustomer =
    !asked ||
    alone(wide) ||
    (found.some((other) => other.phrase.role === 'me') &&
      found.some((other) => (other.phrase.role === 'person' || (other.phrase.role === 'someone' && askingFor)) && !coveredAsNoPerson(other)));
  return ofTheCustomer && !asksWhat ? wide : undefined;
}

/** The definite articles of the languages that have them: "the agent …" starting a clause is one already met. */
const DEFINITE_ARTICLES: Readonly<Record<string, readonly string[]>> = {
  en: ['the'],
  de: ['der', 'die', 'das', 'den', 'dem'],
  nl: ['de', 'het'],
  fr: ['le', 'la', 'l'],
  es: ['el', 'la'],
  it: ['il', 'lo', 'la', 'l'],
  pt: ['o', 'a'],
};

/** The possessives of the customer's own ("my agent", "mein Berater"): a person of theirs, not of the shop. */
const POSSESSIVES: Readonly<Record<string, readonly string[]>> = {
  en: ['my', 'our'],
  de: ['mein', 'meine', 'meinem', 'meinen', 'meiner', 'unser', 'unsere', 'unserem', 'unseren'],
  nl: ['mijn', 'onze'],
  fr: ['mon', 'ma', 'mes', 'notre', 'nos'],
  es: ['mi', 'mis', 'nuestro', 'nuestra'],
  it: ['mio', 'mia', 'miei', 'nostro', 'nostra'],
  pt: ['meu', 'minha', 'meus', 'minhas', 'nosso', 'nossa'],
  pl: ['moj', 'moja', 'mojego', 'mojej', 'moim', 'nasz', 'nasza'],
};

/** True when a possessive of its language stands right before the person ("my agent in Germany …"). */
function afterPossessive(units: readonly Unit[], person: Found): boolean {
  return wordBeforeIs(units, person, POSSESSIVES);
}

/** True when the word right before the person is one of its language's in `words`. */
function wordBeforeIs(units: readonly Unit[], person: Found, words: Readonly<Record<string, readonly string[]>>): boolean {
  const before = units[person.start - 1];
  return before !== undefined && before !== CLAUSE && (words[person.phrase.language ?? '']?.includes(before.word) ?? false);
}

/** What asks for a person in a clause: with it, "the owner" is asked for ("the owner please"). */
const REQUESTING: ReadonlySet<Role> = new Set<Role>(['askFor', 'want', 'please', 'exists', 'available', 'contact', 'callback']);

/**
 * True when the person starts its clause after a definite article of its language ("the
 * human on the phone …", "der Mitarbeiter hat gesagt …"): one the customer has met, told of
 * when nothing in the clause asks for it.
 */
function afterDefiniteArticle(units: readonly Unit[], person: Found): boolean {
  return wordBeforeIs(units, person, DEFINITE_ARTICLES) && (person.start === 1 || units[person.start - 2] === CLAUSE);
}

/** Where the fillers and "please"s that start at `from` end ("mich ma wer", "mi bitte wer"). */
function endOfFillers(from: number, at: WordingsAt): number {
  let end = from;
  for (let next = wordingWith(at, end, FILLER_OR_PLEASE); next && next.end > end; next = wordingWith(at, end, FILLER_OR_PLEASE)) end = next.end;
  return end;
}

const FILLER_OR_PLEASE: ReadonlySet<Role> = new Set<Role>(['personFiller', 'please']);

/** The one-word "me" of each language ("me", "mi", "mich"). */
const ME_WORDS = new Map<string, Set<string>>();
for (const phrase of [...INDEX.values()].flat()) {
  if (phrase.role === 'me' && phrase.words.length === 1 && phrase.language) ME_WORDS.set(phrase.language, (ME_WORDS.get(phrase.language) ?? new Set()).add(phrase.words[0]!));
}
/** The customer written onto the end of a verb ("pásame", "passatemi", "transfira-me" folded). */
const CLITIC_ME: Readonly<Record<string, string>> = { es: 'me', it: 'mi', pt: 'me' };

/**
 * True for a wording of contact that names the customer, as an imperative does ("pásame con
 * alguien", "passatemi qualcuno", "dajcie mi kogoś", "me passa pra alguém"), after a word that is
 * no wording: a negation before that word negates it, not the request typed on after a problem
 * ("el formulario no funciona pásame con alguien"; "no quiero hablar con nadie" keeps its "no").
 */
function customerContactAfterWord(wording: Found, units: readonly Unit[], at: WordingsAt): boolean {
  if (wording.phrase.role !== 'contact' || wording.start === 0 || units[wording.start - 1] === CLAUSE || units[wording.start]!.unspaced) return false;
  const language = wording.phrase.language ?? '';
  const words = wording.phrase.words;
  const clitic = CLITIC_ME[language];
  const namesCustomer = words.some((word) => ME_WORDS.get(language)?.has(word)) || (clitic !== undefined && words.at(-1)!.length > clitic.length + 3 && words.at(-1)!.endsWith(clitic));
  return namesCustomer && !coveredByWording(at, wording.start - 1);
}

/** True when some wording covers the unit. */
function coveredByWording(at: WordingsAt, unit: number): boolean {
  for (let start = Math.max(0, unit - LONGEST_WORDING + 1); start <= unit; start++) if (at[start]?.some((wording) => wording.end > unit)) return true;
  return false;
}

/** "Without": a negation only of what follows it ("sin hablar con nadie"; not "ten czat jest bez sensu dawaj człowieka"). */
const WITHOUT: ReadonlySet<string> = new Set(['without', 'ohne', 'sans', 'sin', 'senza', 'sem', 'zonder', 'bez', 'utan', 'uden', 'uten', 'без']);

/** True for a "without" with no wording right after it (past fillers): it negates a word no wording holds. */
function withoutAWording(negation: Found, at: WordingsAt): boolean {
  return negation.phrase.words.length === 1 && WITHOUT.has(negation.phrase.words[0]!) && !at[endOfFillers(negation.end, at)]?.length;
}

/** What learnedRequestAnchor asks of a message's wordings, indexed once so that its reading stays linear in them. */
interface ReadWordings {
  /** The roles each clause holds. */
  rolesByClause: Map<number, Set<Role>>;
  /** The stretch a negation reaches over, by unit: its clause, and in an unspaced script no further than a space ("我年纪大了不太会用手机 能不能找个人打电话给我"). */
  negationScopeOf: number[];
  /**
   * Per negation scope, where its first negation ends, by the language it negates in: under '*' one whose
   * words are nothing else in any language ("nicht"), under a language one that is also
   * something else elsewhere (Finnish "en" is Dutch "een", folded), or a "stop" in a clause with no bot. None right before a bot, or
   * inside a longer wording ("不" in "能不能").
   */
  firstNegationEnd: Map<number, Map<string, number>>;
  /** The wordings of no person ("real estate agent") over each unit they cover. */
  noPersonAt: Map<number, Found[]>;
  /** The units where a wording of wanting or asking for starts ("give me"). */
  wantedAt: Set<number>;
  /** The clauses whose every unit is a wording of ONLY_ASKING_ROLES. */
  onlyAskingClauses: Set<number>;
  /** Per clause, where its first way of reaching the customer ends: a callback, or reaching out with the customer named in the clause. */
  firstReachingOutEnd: Map<number, number>;
  /** Per clause, the languages of its wordings that ask for a person (REQUESTING). */
  requestingLanguages: Map<number, Set<string | null>>;
  /** The clauses that name a medium the customer is to be reached by ("by phone", "telefonisch", "電話で"). */
  mediumClauses: Set<number>;
  /** The units where a wording starts inside one that starts before it ("como" in "tem como"). */
  startsInsideWordings: Set<number>;
  /** The negation scopes a condition opens ("if nobody calls me today, …"): a negation in one turns no being reached around. */
  conditionalScopes: Set<number>;
}

/** Verbs of finding out, after which "if" is "whether" ("to see if", "pra ver se", "pour savoir si"), folded. */
const FINDING_OUT: ReadonlySet<string> = new Set(
  ['see', 'check', 'know', 'confirm', 'ask', 'sehen', 'wissen', 'fragen', 'prüfen', 'voir', 'savoir', 'vérifier', 'ver', 'saber', 'comprobar', 'vedere', 'sapere', 'verificare', 'zien', 'weten', 'vragen', 'checken', 'verificar'].map(
    (word) => wordsOf(word).join(' '),
  ),
);

/** Conditions that also mean "when": after being reached they set a time ("schreibt mir wenn einer Zeit hat", "bel me als er iemand vrij is"). */
const WHEN_TOO: ReadonlySet<string> = new Set(['wenn', 'als'].map((word) => wordsOf(word).join(' ')));

/** The wordings that start a negation scope of their own: asking for ("…marche pas pouvez vous me passer quelqu'un"), a condition ("…, si nadie me llama hoy"). */
const SCOPE_STARTS: ReadonlySet<Role> = new Set<Role>(['askFor', 'condition']);

/** The words of a channel that name a medium ("by phone", "per Mail", "電話で"), not a time or a number ("tomorrow", "at 5"). Folded: "whatsap", "coreo". */
const MEDIUM = /^(?:phone|telephone|tel|telefon\p{L}*|telefone|telefoon|telefonicznie|puhelimitse|\p{L}*mail\p{L}*|mejl|epost|sms\p{L}*|text|whatsap|zap|coreo|ecrit|телефон\p{L}*|почт\p{L}*)$|電話|メール/u;

/** True for a channel that names a medium. */
function namesMedium(wording: Found): boolean {
  return wording.phrase.role === 'channel' && (wording.phrase.words.some((word) => MEDIUM.test(word)) || MEDIUM.test(wording.phrase.words.join('')));
}

/** What a clause that asks only for someone is made of: "Mensch bitte", "Ist da jemand?", "c'è qualcuno di vero lì?", "halo jest ktoś???". */
const ONLY_ASKING_ROLES: ReadonlySet<Role> = new Set<Role>(['person', 'someone', 'please', 'exists', 'available', 'personFiller', 'greeting']);
/** Asking for, in any words: what a question about someone must hold to ask for them ("can someone call me?", not "did someone call me?"). */
const ASKING_FOR: ReadonlySet<Role> = new Set<Role>(['askFor', 'want', 'please', 'exists']);
/** What such a clause must hold besides the person: the asking. */
const ASKING_ROLES: ReadonlySet<Role> = new Set<Role>(['please', 'exists', 'available']);

function readWordings(units: readonly Unit[], found: readonly Found[], at: WordingsAt, clauseOf: readonly number[]): ReadWordings {
  const read: ReadWordings = {
    rolesByClause: new Map(),
    negationScopeOf: negationScopes(units, new Set(found.filter((wording) => SCOPE_STARTS.has(wording.phrase.role) || customerContactAfterWord(wording, units, at)).map((wording) => wording.start))),
    conditionalScopes: new Set(),
    startsInsideWordings: new Set(),
    firstNegationEnd: new Map(),
    noPersonAt: new Map(),
    wantedAt: new Set(),
    onlyAskingClauses: new Set(),
    firstReachingOutEnd: new Map(),
    requestingLanguages: new Map(),
    mediumClauses: new Set(found.filter(namesMedium).map((wording) => clauseOf[wording.start]!)),
  };
  for (const wording of found) if (wording.phrase.role === 'condition') read.conditionalScopes.add(read.negationScopeOf[wording.start]!);
  const machineStarts = new Set(found.filter((wording) => wording.phrase.role === 'machine').map((wording) => wording.start));
  // Units covered by a wording of ONLY_ASKING_ROLES, or by a bot refused ("kein bot"); a clause is only asking when all its units are ("mensch bitte kein bot").
  const asking = new Set<number>();
  const cover = (wording: Found) => {
    for (let unit = wording.start; unit < wording.end; unit++) asking.add(unit);
  };
  const negationEnds = new Set(found.filter((wording) => wording.phrase.role === 'negation').map((wording) => wording.end));
  for (const wording of found) {
    if (ONLY_ASKING_ROLES.has(wording.phrase.role)) cover(wording);
    else if (wording.phrase.role === 'negation' && machineStarts.has(wording.end)) cover(wording);
    else if (wording.phrase.role === 'machine' && negationEnds.has(wording.start)) cover(wording);
  }
  const notOnlyAsking = new Set<number>();
  clauseOf.forEach((clause, unit) => {
    if (!asking.has(unit) && units[unit] !== CLAUSE) notOnlyAsking.add(clause);
  });
  for (const clause of clauseOf) if (!notOnlyAsking.has(clause)) read.onlyAskingClauses.add(clause);
  const machineClauses = new Set([...machineStarts].map((start) => clauseOf[start]!));
  const negationEndsAt = (start: number, negates: string, end: number) => {
    const scope = read.negationScopeOf[start]!;
    const ends = read.firstNegationEnd.get(scope) ?? new Map<string, number>();
    read.firstNegationEnd.set(scope, ends.set(negates, Math.min(ends.get(negates) ?? Infinity, end)));
  };
  // The wordings at each start that are something other than a negation, and how far the wordings before each start reach (found is in order of start).
  const otherThanNegationAt = new Set(found.filter((wording) => wording.phrase.role !== 'negation').map((wording) => wording.start));
  const reachBefore = new Map<number, number>();
  let reach = -1;
  // The same over wordings of every role, negations too: where a wording starts inside another ("como" in "tem como").
  let reachOfAny = -1;
  for (const wording of found) {
    if (!reachBefore.has(wording.start)) {
      reachBefore.set(wording.start, reach);
      if (reachOfAny > wording.start) read.startsInsideWordings.add(wording.start);
    }
    if (wording.phrase.role !== 'negation') reach = Math.max(reach, wording.end);
    reachOfAny = Math.max(reachOfAny, wording.end);
  }
  for (const wording of found) {
    const clause = clauseOf[wording.start]!;
    const roles = read.rolesByClause.get(clause) ?? new Set<Role>();
    read.rolesByClause.set(clause, roles.add(wording.phrase.role));
    const role = wording.phrase.role;
    if (role === 'negation' && !machineStarts.has(wording.end) && reachBefore.get(wording.start)! <= wording.start && !withoutAWording(wording, at)) {
      const negates = otherThanNegationAt.has(wording.start) || alsoAnArticle(wording) ? (wording.phrase.language ?? '*') : '*';
      negationEndsAt(wording.start, negates, wording.end);
      // One right before the space reaches over it ("不用 找人工了").
      if (units[wording.end]?.afterSpace) negationEndsAt(wording.end, negates, wording.end);
    }
    // A "stop" that holds a negation, with no bot in its clause, turns a person away as the negation would ("ik praat niet met een medewerker").
    if (negatingStop(wording) && !machineClauses.has(clause)) negationEndsAt(wording.start, '*', wording.start + 1);
    if (role === 'want' || role === 'askFor') read.wantedAt.add(wording.start);
    if (REQUESTING.has(role)) read.requestingLanguages.set(clause, (read.requestingLanguages.get(clause) ?? new Set()).add(wording.phrase.language));
    if (role !== 'notPerson') continue;
    for (let unit = wording.start; unit < wording.end; unit++) {
      const covering = read.noPersonAt.get(unit) ?? [];
      if (covering.length === 0) read.noPersonAt.set(unit, covering);
      covering.push(wording);
    }
  }
  // After the roles of every clause are known: reaching out counts only with the customer named in its clause.
  for (const wording of found) {
    const clause = clauseOf[wording.start]!;
    const reachesOut = wording.phrase.role === 'callback' || (wording.phrase.role === 'reachOut' && read.rolesByClause.get(clause)!.has('me'));
    if (reachesOut) read.firstReachingOutEnd.set(clause, Math.min(read.firstReachingOutEnd.get(clause) ?? Infinity, wording.end));
  }
  return read;
}

/* ------------------------------------------------------------------------------------ */
/* The second reader: small talk the wordings do not list                               */
/* ------------------------------------------------------------------------------------ */

const SMALL_TALK_MODEL = readActModel(ACTS_MODELS.smallTalk);
/** The wordings of praise, in every language, as matched. */
const PRAISE = new Set([NEUTRAL, ...Object.values(WORDINGS)].flatMap((wordings) => (wordings.praise ?? []).map((wording) => wordsOf(wording).join(' '))));

/** The least probability the model must give small talk (BENCHMARKS.md, "Second readers of requests and small talk"). */
const LEARNED_SMALL_TALK_THRESHOLD = 0.9;
/** The least probability for small talk the wordings cover less than half of and no praise closes (BENCHMARKS.md, "Acts: praise in the customer's words"). */
const LEARNED_SMALL_TALK_ALONE_THRESHOLD = 0.998;
/** The shortest nod or praise the model alone is believed of: two words are a title as often as praise ("Good decisions"; "supi, dankeee" thanks). */
const MIN_ALONE_ACKNOWLEDGEMENT_UNITS = 3;
/** The longest message it reads, in words (a character of an unspaced script half a word): thanks, a compliment and a goodbye fit. */
const MAX_LEARNED_SMALL_TALK_UNITS = 40;
/** Wordings that make a message about something else: a negation ("Dziękuję, ale paczka nie dotarła"), being reached, asking how or whether. */
const NOT_SMALL_TALK: ReadonlySet<Role> = new Set<Role>(['negation', 'contact', 'contactFollowing', 'callback', 'askFor', 'asksHow', 'asksWhether', 'stop', 'reachOut']);

/**
 * Small talk the wordings do not read whole ("Thanks a lot, you've been really helpful. Have a
 * lovely evening!"), read by the model (acts-model.ts) in a message the lists left to search.
 * Believed only of a message that asks nothing (no "?" at its end, no wording of a person, of
 * being reached, of asking how or whether), holds a small-talk wording, and is mostly small-talk
 * wordings, ends in praise, or is read by the model all but surely and turns to nothing ("but"):
 * alone, the model reads any short message as small talk ("VPC", "Value").
 */
function learnedSmallTalkOf(text: string, units: readonly Unit[], at: WordingsAt, work: Work): RecognizedAct | null {
  const words = units.filter((unit) => unit !== CLAUSE);
  // A character of an unspaced script counts half a word: "いつも素敵なお洋服をありがとうございます…" is a sentence or two.
  const length = words.reduce((sum, unit) => sum + (unit.unspaced ? 0.5 : 1), 0);
  if (QUESTION_END.test(text) || length > MAX_LEARNED_SMALL_TALK_UNITS) return null;
  const acts: Phrase[] = [];
  let covered = 0;
  let endsInPraise = false;
  // Within clauses ("真好，好评": no "好好" across the comma), and which units a wording of small talk (not a filler: "nie") covers.
  const lastWordEnd = units.findLastIndex((unit) => unit !== CLAUSE) + 1;
  const smallTalkUnits = new Set<number>();
  for (let i = 0; i < lastWordEnd; ) {
    const [longest] = phrasesAt(units, i, SMALL_TALK_ROLES, work);
    if (!longest) {
      i += 1;
      continue;
    }
    if (longest.role !== 'smallTalkFiller') {
      acts.push(longest);
      for (let k = i; k < i + longest.words.length; k++) smallTalkUnits.add(k);
    }
    covered += longest.words.length;
    i += longest.words.length;
    if (i === lastWordEnd) endsInPraise = PRAISE.has(longest.words.join(' '));
  }
  // Nothing inside a wording of small talk other than a filler is about something else ("不" of "真不错", really not bad; "お願いします" of "よろしくお願いします"),
  // nor a negation that is also another word where it stands ("en": Finnish "not", Dutch "een", folded).
  const insideSmallTalk = (wording: Found) => smallTalkUnits.has(wording.start) && smallTalkUnits.has(wording.end - 1);
  const aboutSomethingElse = (wording: Found, here: readonly Found[]) =>
    NOT_SMALL_TALK.has(wording.phrase.role) &&
    !insideSmallTalk(wording) &&
    !(wording.phrase.role === 'negation' && here.some((other) => other.phrase.role !== 'negation' && other.end === wording.end));
  if (at.some((here) => here?.some((wording) => aboutSomethingElse(wording, here)))) return null;
  // The shop's people thanked or praised ("Parabéns pra equipe toda!", "スタッフの皆様によろしくお伝えください"): believed only all but surely.
  const namesPeople = at.some((here) => here?.some((wording) => PERSON_OR_SOMEONE.has(wording.phrase.role)));
  const act = smallTalkActOf(acts);
  if (!act) return null;
  const probability = actProbability(SMALL_TALK_MODEL, featuresOf(units, work));
  // More than half of it: the rest may be what the lists lack ("have a lovely evening"), but not a matter ("Good decisions").
  // Or closed by praise: what comes before praises in the customer's words ("Le scarpe sono stupende e sono arrivate in due giorni, bravissimi!").
  if ((covered * 2 > words.length || endsInPraise) && probability >= LEARNED_SMALL_TALK_THRESHOLD && !namesPeople) return act;
  // Or the model all but sure, with nothing turning it to a matter ("Super sklep, kurtka przyszła szybko i jest świetnej jakości!"; not "Great shop, but the box was damaged").
  return probability >= LEARNED_SMALL_TALK_ALONE_THRESHOLD && (act.act !== 'acknowledgement' || words.length >= MIN_ALONE_ACKNOWLEDGEMENT_UNITS) && !holdsContrast(words, work) ? act : null;
}

const CONTRAST: ReadonlySet<Role> = new Set<Role>(['contrast']);

/** True when a wording of contrast stands in the words ("but", "leider"). */
function holdsContrast(words: readonly Unit[], work: Work): boolean {
  for (let i = 0; i < words.length; i++) if (phrasesAt(words, i, CONTRAST, work).length > 0) return true;
  return false;
}

/**
 * What the model reads of a message: each spaced word, its character 3- to 5-grams with the
 * word's edges marked (so "mitarbeiter" and "mitarbeitern", "human" and "humano" share most),
 * each run of an unspaced script as its 1- to 3-character pieces, and each pair of neighbouring
 * words. From the folded units, as the wordings are matched.
 */
function featuresOf(units: readonly Unit[], work: Work): string[] {
  const features: string[] = [];
  const tokens: string[] = [];
  let run = '';
  const endRun = () => {
    if (run === '') return;
    for (let n = 1; n <= 3; n++) for (let i = 0; i + n <= run.length; i++) features.push(`c${run.slice(i, i + n)}`);
    tokens.push(run);
    run = '';
  };
  for (const unit of units) {
    work.steps += 1;
    if (unit === CLAUSE) continue;
    if (unit.unspaced) {
      run += unit.word;
      continue;
    }
    endRun();
    features.push(`w${unit.word}`);
    const marked = ` ${unit.word} `;
    for (let n = 3; n <= 5; n++) for (let i = 0; i + n <= marked.length; i++) features.push(`g${marked.slice(i, i + n)}`);
    tokens.push(unit.word);
  }
  endRun();
  for (let i = 0; i + 1 < tokens.length; i++) features.push(`b${tokens[i]}_${tokens[i + 1]}`);
  return features;
}

/** The features the model reads of a message (for training them: scripts/train-acts-model.ts). */
export function messageFeatures(message: string): string[] {
  const work = { steps: 0 };
  return featuresOf(unitsRead(boundedSearchText(message, READ_MAX_CHARS), work), work);
}

/** The smileys small talk may hold ("danke 😊"): the language-neutral fillers that are no word (the matcher drops them). */
const SMILEYS = new Set((NEUTRAL.smallTalkFillers ?? []).filter((filler) => !LETTER_OR_DIGIT.test(filler)));
/** What may stand beside them: spaces, punctuation, and the marks that make an emoji's variant (U+FE0F, the joiner, skin tones). */
const BESIDE_SMILEYS = /[\s\p{P}\uFE0F\u200D\u{1F3FB}-\u{1F3FF}]/u;

/**
 * True for a message of smileys alone ("😊", "🙂🙂"): it nods, as "ok" does. Not an angry or a
 * sad face, nor any other symbol ("😡", "📦"): those are not small talk, and go on to search.
 */
function smileysOnly(text: string, work: Work): boolean {
  let smiley = false;
  for (const character of text) {
    work.steps += 1;
    if (SMILEYS.has(character)) smiley = true;
    else if (!BESIDE_SMILEYS.test(character)) return false;
  }
  return smiley;
}

/* ------------------------------------------------------------------------------------ */
/* Replies                                                                              */
/* ------------------------------------------------------------------------------------ */

/**
 * The built-in replies, per language: short, warm, and without a shop's name (the caller
 * may add it). Written so the speaker has no grammatical gender ("Ravi de…", "Рад…" would
 * make the assistant a man).
 */
const REPLIES: Record<string, Record<SmallTalkAct, string>> = {
  en: {
    greeting: 'Hello! How can I help you today?',
    thanks: "You're welcome! Is there anything else I can help you with?",
    goodbye: 'Goodbye, and have a lovely day!',
    acknowledgement: 'Glad I could help. Anything else I can do for you?',
  },
  de: {
    greeting: 'Hallo! Wie kann ich Ihnen helfen?',
    thanks: 'Gern geschehen! Kann ich sonst noch etwas für Sie tun?',
    goodbye: 'Auf Wiedersehen und einen schönen Tag!',
    acknowledgement: 'Freut mich, dass ich helfen konnte. Gibt es noch etwas?',
  },
  fr: {
    greeting: 'Bonjour ! Comment puis-je vous aider ?',
    thanks: 'Avec plaisir ! Puis-je vous aider pour autre chose ?',
    goodbye: 'Au revoir et bonne journée !',
    acknowledgement: 'Parfait ! Puis-je faire autre chose pour vous ?',
  },
  es: {
    greeting: '¡Hola! ¿En qué puedo ayudarte?',
    thanks: '¡De nada! ¿Hay algo más en lo que pueda ayudarte?',
    goodbye: '¡Hasta luego y que tengas un buen día!',
    acknowledgement: 'Me alegra haberte ayudado. ¿Algo más?',
  },
  it: {
    greeting: 'Ciao! Come posso aiutarti?',
    thanks: 'Prego! Posso aiutarti con qualcos’altro?',
    goodbye: 'Arrivederci e buona giornata!',
    acknowledgement: 'Bene! C’è altro in cui posso aiutarti?',
  },
  nl: {
    greeting: 'Hallo! Waarmee kan ik je helpen?',
    thanks: 'Graag gedaan! Kan ik je nog ergens anders mee helpen?',
    goodbye: 'Tot ziens en nog een fijne dag!',
    acknowledgement: 'Fijn dat ik kon helpen. Is er nog iets?',
  },
  pt: {
    greeting: 'Olá! Como posso ajudar?',
    thanks: 'De nada! Posso ajudar em mais alguma coisa?',
    goodbye: 'Até logo e tenha um ótimo dia!',
    acknowledgement: 'Que bom que pude ajudar. Mais alguma coisa?',
  },
  pl: {
    greeting: 'Dzień dobry! W czym mogę pomóc?',
    thanks: 'Nie ma za co! Czy mogę pomóc w czymś jeszcze?',
    goodbye: 'Do widzenia i miłego dnia!',
    acknowledgement: 'Świetnie! Czy mogę jeszcze w czymś pomóc?',
  },
  tr: {
    greeting: 'Merhaba! Size nasıl yardımcı olabilirim?',
    thanks: 'Rica ederim! Başka bir konuda yardımcı olabilir miyim?',
    goodbye: 'Hoşça kalın, iyi günler!',
    acknowledgement: 'Yardımcı olabildiysem ne mutlu. Başka bir şey var mı?',
  },
  ja: {
    greeting: 'こんにちは！どのようなご用件でしょうか？',
    thanks: 'どういたしまして！他にお手伝いできることはありますか？',
    goodbye: 'ご利用ありがとうございました。良い一日を！',
    acknowledgement: 'お役に立ててうれしいです。他に何かございますか？',
  },
  zh: {
    greeting: '您好！请问有什么可以帮您？',
    thanks: '不客气！还有什么可以帮您的吗？',
    goodbye: '再见，祝您愉快！',
    acknowledgement: '很高兴能帮到您。还有其他问题吗？',
  },
  ko: {
    greeting: '안녕하세요! 무엇을 도와드릴까요?',
    thanks: '천만에요! 더 도와드릴 일이 있을까요?',
    goodbye: '안녕히 가세요. 좋은 하루 보내세요!',
    acknowledgement: '도움이 되어 기쁩니다. 더 필요한 것이 있으신가요?',
  },
  ru: {
    greeting: 'Здравствуйте! Чем могу помочь?',
    thanks: 'Пожалуйста! Могу ли я помочь чем-то ещё?',
    goodbye: 'До свидания, хорошего дня!',
    acknowledgement: 'Отлично! Если появятся вопросы, пишите.',
  },
  sv: {
    greeting: 'Hej! Hur kan jag hjälpa dig?',
    thanks: 'Varsågod! Är det något mer jag kan hjälpa till med?',
    goodbye: 'Hej då och ha en fin dag!',
    acknowledgement: 'Kul att jag kunde hjälpa till. Något mer?',
  },
  da: {
    greeting: 'Hej! Hvordan kan jeg hjælpe dig?',
    thanks: 'Det var så lidt! Er der andet, jeg kan hjælpe med?',
    goodbye: 'Farvel og hav en god dag!',
    acknowledgement: 'Dejligt, at jeg kunne hjælpe. Andet?',
  },
  no: {
    greeting: 'Hei! Hvordan kan jeg hjelpe deg?',
    thanks: 'Bare hyggelig! Er det noe mer jeg kan hjelpe med?',
    goodbye: 'Ha det bra, og ha en fin dag!',
    acknowledgement: 'Godt at jeg kunne hjelpe. Noe mer?',
  },
  fi: {
    greeting: 'Hei! Miten voin auttaa?',
    thanks: 'Ole hyvä! Voinko auttaa jossain muussa?',
    goodbye: 'Näkemiin ja hyvää päivänjatkoa!',
    acknowledgement: 'Kiva, että pystyin auttamaan. Jotain muuta?',
  },
  cs: {
    greeting: 'Dobrý den! S čím vám mohu pomoci?',
    thanks: 'Rádo se stalo! Mohu vám pomoci ještě s něčím?',
    goodbye: 'Na shledanou a hezký den!',
    acknowledgement: 'Výborně! Mohu pomoci ještě s něčím?',
  },
  ar: {
    greeting: 'مرحبًا! كيف يمكنني مساعدتك؟',
    thanks: 'على الرحب والسعة! هل يمكنني مساعدتك في شيء آخر؟',
    goodbye: 'مع السلامة، أتمنى لك يومًا سعيدًا!',
    acknowledgement: 'يسعدني أنني استطعت المساعدة. هل هناك شيء آخر؟',
  },
};

/** The languages the built-in replies are written in. */
export const ACT_REPLY_LANGUAGES: readonly string[] = Object.freeze(Object.keys(REPLIES));

/** The built-in short reply to a small-talk act in a language; falls back to English. Takes a primary subtag or a full tag ("de-AT"). */
export function defaultActReply(act: SmallTalkAct, language: string): string {
  const primary = language.split(/[-_]/u)[0]!.toLowerCase();
  return (REPLIES[primary] ?? REPLIES.en!)[act];
}
