/**
 * The conversation acts a whole message can be (greeting, thanks, goodbye,
 * acknowledgement, a request for a person), recognized before search in many
 * languages, and the built-in replies to small talk.
 *
 * The first wordings below were written down from how customers write in support
 * chats (typos, no punctuation, mixed case) before the matcher was written; later
 * batches were each measured before the matcher was changed for them (LATER_WORDINGS).
 * The recall test allows a few misses rather than listing every wording in the module.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { ACTS_MODEL_PATH, actsModelText } from '../../scripts/train-acts-model';
import {
  ACT_REPLY_LANGUAGES,
  defaultActReply,
  recognitionSteps,
  recognizeConversationAct,
  type ConversationAct,
  type SmallTalkAct,
} from '../../src/chat/conversation-acts';

/** Real-world wordings per act, across languages (en de fr es it nl pt pl tr ja zh ko ru sv da no fi cs ar). */
const WORDINGS: Record<ConversationAct, string[]> = {
  greeting: [
    'hi', 'Hi!', 'hello', 'Hello there', 'hey', 'heyyy', 'hiya', 'good morning', 'Good evening!', 'hallo',
    'Hallo!', 'guten Tag', 'Guten Morgen', 'moin', 'servus', 'Grüß Gott', 'gruess dich', 'hola', 'Hola!', 'buenos días',
    'buenas tardes', 'bonjour', 'Bonsoir', 'salut', 'ciao', 'buongiorno', 'hej', 'hej hej', 'goedemiddag', 'hoi',
    'olá', 'ola bom dia', 'boa tarde', 'cześć', 'dzien dobry', 'merhaba', 'selam', 'iyi günler', 'こんにちは', 'おはようございます',
    '你好', '您好', '안녕하세요', '안녕', 'привет', 'здравствуйте', 'Добрый день', 'hei', 'moi', 'ahoj', 'dobrý den',
    'مرحبا', 'السلام عليكم', 'god morgen', 'hallo zusammen', 'hi 👋',
  ],
  thanks: [
    'thanks!', 'thank you', 'Thank you so much', 'thx', 'ty', 'thanks a lot', 'thaaanks', 'thnaks', 'many thanks', 'cheers',
    'ok danke', 'danke', 'Danke schön', 'dankeschön', 'vielen dank', 'Vielen Dank!!', 'danke dir', 'super, danke dir!', 'merci', 'merci beaucoup',
    'Merci bcp', 'gracias', 'muchas gracias', 'grazie', 'grazie mille', 'dank je wel', 'bedankt', 'dankjewel', 'obrigado', 'obrigada',
    'muito obrigado', 'dziękuję', 'dziekuje bardzo', 'dzięki', 'teşekkürler', 'tesekkur ederim', 'sağol', 'ありがとう', 'ありがとうございます', '谢谢',
    '谢谢你', '多谢', '감사합니다', '고마워요', 'спасибо', 'Спасибо большое', 'tack', 'tack så mycket', 'tak', 'takk', 'kiitos',
    'děkuji', 'شكرا', 'thanks 🙏', 'ok thanks',
  ],
  goodbye: [
    'bye', 'Bye!', 'goodbye', 'bye bye', 'see you', 'have a nice day', 'ok thanks bye', 'tschüss', 'tschuess', 'tschüssi',
    'auf wiedersehen', 'bis dann', 'ciao ciao', 'au revoir', 'bonne journée', 'adiós', 'adios', 'hasta luego', 'arrivederci', 'tot ziens',
    'doei', 'tchau', 'até logo', 'do widzenia', 'na razie', 'hoşça kal', 'görüşürüz', 'さようなら', 'じゃあね', '再见',
    '拜拜', '안녕히 계세요', 'до свидания', 'пока', 'hej då', 'ha det', 'farvel', 'näkemiin', 'nashledanou', 'مع السلامة',
    'thanks, bye', 'danke, tschüss', 'merci, au revoir',
  ],
  acknowledgement: [
    'ok', 'OK', 'okay', 'okey', 'oki', 'k', 'alright', 'all right', 'got it', 'perfect',
    'great', 'super', 'cool', 'sounds good', 'understood', 'alles klar', 'ok super', 'passt', 'verstanden', 'prima',
    "d'accord", 'parfait', 'entendu', 'vale', 'perfecto', 'entendido', 'va bene', 'perfetto', 'capito', 'oké',
    'prima, helder', 'beleza', 'entendi', 'jasne', 'rozumiem', 'tamam', 'anladım', '了解しました', '好的', '明白了',
    '알겠습니다', 'понятно', 'хорошо', 'okej', 'selvfølgelig', 'selvä', 'dobře', 'حسنا', '👍', '👌',
  ],
  ask_for_person: [
    'can I talk to a human?', 'can I talk to someone real', 'I want to speak to an agent', 'real person please', 'get me a human',
    'human please', 'talk to a human', 'agent', 'i need to speak with a representative', 'let me talk to a real person',
    'connect me to customer service', 'can i speak to a live agent pls', 'my parcel is broken, I want to talk to a human', 'transfer me to a person',
    'Mitarbeiter bitte', 'ich möchte mit einem Menschen sprechen', 'kann ich einen Mitarbeiter sprechen', 'mit einem echten menschen sprechen bitte',
    'ich will mit jemandem reden', 'verbinden Sie mich mit einem Mitarbeiter',
    'je veux parler à un conseiller', 'je voudrais parler a un humain', 'un conseiller svp',
    'quiero hablar con una persona', 'puedo hablar con un agente?', 'vorrei parlare con un operatore', 'posso parlare con una persona reale',
    'ik wil een medewerker spreken', 'kan ik met een mens praten', 'quero falar com um atendente', 'posso falar com uma pessoa',
    'chcę rozmawiać z konsultantem', 'chce porozmawiac z czlowiekiem', 'müşteri temsilcisi ile görüşmek istiyorum', 'canlı destek',
    '人工客服', '转人工', '我要找人工', 'オペレーターと話したい', '担当者につないでください', '상담원 연결', '상담원이랑 통화하고 싶어요',
    'позовите оператора', 'хочу поговорить с оператором', 'jag vill prata med en människa', 'kan jeg tale med en medarbejder',
    'jeg vil snakke med et menneske', 'haluan puhua ihmisen kanssa', 'chci mluvit s operátorem', 'أريد التحدث مع موظف',
  ],
};

/**
 * Wordings written later, each batch measured on the matcher as it was before any
 * change for it: 156 of 161 recognized (the batch written after the first version),
 * then 118 of 131 (the batch from "i want to talk with a real human being" and "ok thank
 * you so much" on). Kept so later changes keep them.
 */
const LATER_WORDINGS: Record<ConversationAct, string[]> = {
  greeting: [
    'hello!!', 'Hi :)', 'hey hey', 'good morning team', 'Hallo ihr Lieben', 'Moin!', 'Guten Abend zusammen', 'Bonjour !', 'coucou', 'Hola, buenas',
    'ciao!', 'Buongiorno a tutti', 'goedemorgen', 'Olá!', 'bom dia', 'Dzień dobry', 'Merhabalar', 'こんばんは', '您好！', '안녕하세요!', 'Здравствуйте!',
    'Hejsan', 'Hei!', 'Ahoj', 'أهلا', 'hello?', 'hi hi', 'Servus!', 'Grüezi', 'Salut !', 'hi there!', 'hey guys', 'good morning!', 'Guten Tag!',
    'hallo zusammen', 'bonjour !', 'hola!',
  ],
  thanks: [
    'thank you very much!', 'Thanks so much :)', 'thank u', 'tysm', 'Thanks a ton', 'Danke!!', 'Danke sehr', 'Dankeschön :)', 'herzlichen Dank',
    'Merci !', 'mille mercis', 'Gracias!!', 'mil gracias', 'Grazie!', 'grazie tante', 'Bedankt!', 'Obrigada!', 'valeu', 'Dzięki!', 'Teşekkür ederim',
    'どうもありがとうございます', '非常感谢', '감사해요', 'Спасибо!', 'Tack!', 'Mange tak', 'Takk skal du ha', 'Kiitos!', 'Děkuji', 'شكرا جزيلا', 'thanks for your help!',
    'danke für die Hilfe', 'thank you for the quick answer', 'ok thank you so much', 'great thanks!', 'perfect, thank you', 'cool thx',
    'awesome, thanks a lot!', 'thanks that helps', 'ah ok danke', 'okay, vielen dank!', 'Danke, das hilft mir', 'super, danke schön',
    'alles klar, danke!', 'merci bien', 'ok merci beaucoup', 'parfait merci', "d'accord merci", 'vale gracias', 'perfecto, muchas gracias',
    'ok grazie', 'grazie mille!', 'perfetto grazie', 'ok dank je', 'prima, bedankt!', 'ok obrigado', 'beleza, valeu', 'dzięki wielkie',
    'ok dziękuję', 'tamam teşekkürler', 'çok teşekkür ederim', 'わかりました、ありがとうございます', '好的，谢谢', '네 감사합니다', 'хорошо, спасибо', 'ок спасибо', 'ok tack',
    'ok tak', 'ok takk', 'selvä kiitos', 'dobře, děkuji', 'تمام شكرا',
  ],
  goodbye: [
    'bye!', 'Goodbye :)', 'see ya', 'bye for now', 'Tschüss!', 'Schönen Tag noch', 'bis bald', 'Au revoir !', 'bonne soirée', 'Adiós!',
    'hasta pronto', 'Arrivederci!', 'Tot ziens!', 'Tchau!', 'Do widzenia', 'Görüşürüz', 'さようなら！', '再见！', '안녕히 계세요', 'Пока!', 'Hej då!', 'Ha det bra',
    'Näkemiin!', 'Nashledanou', 'مع السلامة', 'have a good one', 'take care!', 'thanks, have a nice day', 'ok bye', 'Danke, schönen Tag noch!',
    'ok great, bye', "Thanks, that's all", 'Danke und tschüss', 'ok gracias adiós', '谢谢！再见',
  ],
  acknowledgement: [
    'ok!', 'okay.', 'OK cool', 'alright then', 'got it!', 'Perfect!', 'great!', 'sounds good!', 'understood.', 'Alles klar!', 'ok, passt',
    'Verstanden!', 'Super!', "D'accord !", 'parfait', 'Vale!', 'Perfecto', 'Va bene!', 'perfetto', 'Oké', 'Prima!', 'Certo', 'Jasne', 'Tamam',
    '了解です', '好的！', '알겠습니다!', 'Хорошо', 'Okej!', 'Selvä', 'حسنا', '👍👍', 'ok 👍', 'ok verstanden', 'ok passt', 'oké top',
  ],
  ask_for_person: [
    'I want to talk to a person', 'can i talk to someone?', 'speak to a human please', 'I need a human', 'Let me speak to a manager',
    'can you connect me with an agent', 'representative', 'talk to agent', 'transfer me to a human agent please', 'is there a human I can talk to?',
    'I want a real person not a bot', 'Ich möchte einen Mitarbeiter sprechen', 'Kann ich mit jemandem sprechen?',
    'Bitte verbinden Sie mich mit einem Menschen', 'ich will einen echten Menschen', "Je voudrais parler à quelqu'un",
    'Puis-je parler à un conseiller ?', 'Quiero hablar con un agente', 'necesito hablar con alguien', 'Voglio parlare con un operatore',
    'Kan ik een medewerker spreken?', 'Quero falar com um humano', 'Chcę rozmawiać z człowiekiem', 'temsilciye bağlanmak istiyorum', '我要人工客服',
    '转人工客服', '担当者と話したいです', '상담원 연결해주세요', 'Хочу поговорить с человеком', 'Jag vill prata med en människa', 'Jeg vil gerne tale med en medarbejder',
    'Kan jeg snakke med en person?', 'Haluan puhua asiakaspalvelijan kanssa', 'Chci mluvit s člověkem', 'أريد التحدث مع شخص حقيقي',
    'i want to talk with a real human being', 'pls let me speak with someone', 'can u connect me to a real person', 'human agent pls',
    'I need a real person to help me', 'get me a manager', 'I want to speak to your supervisor', 'talk to support agent',
    'let me chat with a person', 'is it possible to talk to a human?', 'how can i talk to a human', 'how do i speak to a real person',
    'i wanna talk to someone', 'REAL PERSON', 'connect me with customer support', 'mitarbeiter sprechen', 'ich will mit einem mitarbeiter reden',
    'bitte einen menschen', 'kann ich bitte mit jemandem vom kundenservice sprechen', 'ich möchte gerne mit einem echten menschen chatten',
    'Verbinden Sie mich bitte mit dem Kundenservice', 'echter mensch bitte', 'gibt es einen menschen mit dem ich sprechen kann',
    'puis-je parler avec un humain', 'je veux un conseiller', 'mettez-moi en relation avec un conseiller', 'parler à un humain',
    'puedo hablar con alguien', 'quiero un agente humano', 'necesito hablar con un asesor', 'pásame con un humano',
    'posso parlare con un operatore?', 'voglio un operatore', 'operatore per favore', 'mi passi un operatore', 'ik wil met een mens praten',
    'medewerker alstublieft', 'kan ik iemand spreken', 'quero falar com atendente', 'posso falar com alguém?', 'atendente por favor',
    'quero atendimento humano', 'chcę porozmawiać z człowiekiem', 'konsultant proszę', 'połącz mnie z konsultantem',
    'temsilci ile görüşmek istiyorum', 'müşteri temsilcisine bağlanmak istiyorum', 'gerçek bir insanla konuşmak istiyorum', 'canlı desteğe bağlan',
    '我想和人工客服说话', '找人工', '人工服务', '请转人工', '我要真人', '担当者と話したいです', 'オペレーターに繋いでください', '人と話したい', 'スタッフと話したい', '상담원과 통화하고 싶어요', '상담사 연결해 주세요', '직원 연결',
    '사람이랑 얘기하고 싶어요', 'соедините с оператором', 'оператора пожалуйста', 'хочу живого человека', 'можно поговорить с человеком?',
    'kan jag prata med en människa', 'koppla mig till kundtjänst', 'jeg vil tale med et menneske', 'kan jeg snakke med en person',
    'haluan puhua asiakaspalvelijan kanssa', 'voinko puhua ihmisen kanssa', 'chci mluvit s operátorem', 'můžu mluvit s člověkem?',
    'أريد التحدث مع موظف خدمة العملاء', 'ممكن اكلم موظف', 'حولني الى موظف',
  ],
};

/** Messages that ask or tell something else: they go to search. */
const NOT_ACTS = [
  'Hi, where is my order?',
  'thanks, but how do I return it?',
  'ok so what about shipping to Austria',
  'Danke, und wie lange dauert der Versand?',
  'refund',
  'Versand',
  'hello I have a question about my invoice',
  'ok and the return label?',
  'super fast shipping?',
  'great, can I pay with PayPal too?',
  'merci, et pour la livraison en Belgique ?',
  'hola, cuánto cuesta el envío',
  '你好，我的订单在哪里？',
  'gracias, y si no me llega?',
  'perfect size chart?',
  'is ok to wash at 60 degrees?',
  'bye bye plastic packaging?',
  'I see. What a terrible war !',
  'human guinea pig',
  'hi, my order ZX-123 has not arrived',
  'perfect, and when does it ship?',
  'ok, but the size is wrong',
  'bonjour, je voudrais retourner un article',
  'ciao, vorrei cambiare taglia',
  'Danke, aber das Paket ist immer noch nicht da',
  'thanks!! where do I find the invoice',
  'Hallo, ich habe eine Frage zu meiner Bestellung',
  'Alles klar, und was kostet der Versand?',
  "Merci, mais je n'ai pas reçu le remboursement",
  'Gracias, pero el paquete no ha llegado',
  'Grazie, ma il pacco è danneggiato',
  'Bedankt, maar het pakket is beschadigd',
  'Obrigado, mas o pacote não chegou',
  'Dziękuję, ale paczka nie dotarła',
  'Teşekkürler ama paket gelmedi',
  'ありがとう、でも荷物が届きません',
  '谢谢，但是包裹还没到',
  '감사합니다, 그런데 배송이 안 왔어요',
  'Спасибо, но посылка не пришла',
  'Tack, men paketet har inte kommit',
  'Kiitos, mutta paketti ei ole tullut',
  'Děkuji, ale balík nepřišel',
  'شكرا، لكن الطرد لم يصل',
  // A word that begins like a person-word is no person.
  'Agentur',
  'Mitarbeiterrabatt',
  'asesoramiento',
  'osobiście',
  'сотрудничество',
  'henkilökohtainen',
  'Personalausweis',
  'humans',
];

/** Messages that mention people without asking to speak to one. */
const MENTIONS_OF_PEOPLE = [
  'can a person pick up my parcel?',
  // Words for a manager that name other things too: Italian "capo" is a garment, "店长推荐" the manager's pick.
  'vorrei restituire un capo',
  'posso cambiare un capo?',
  '我要店长推荐的',
  '店長おすすめのコーヒーが欲しい',
  'my human resources department needs an invoice',
  'is a real person reading this?',
  'am I talking to a human?',
  'can someone else receive the package for me?',
  'my agent in Germany will sign for the delivery',
  'the delivery person left it at the door',
  'how do I contact customer service by phone?',
  'do you need a person to sign for delivery?',
  'spreche ich mit einem Menschen?',
  'kann eine andere Person das Paket abholen?',
  'I do not want to talk to a human, just tell me the price',
  'was this written by a person?',
  'wie viele Mitarbeiter habt ihr?',
  'Does your customer service speak German?',
  'Wie viele Menschen sprechen Deutsch?',
  'Mensch, wo bleibt mein Paket?',
  'Can I have a person collect it at the store?',
  'I talked to an agent yesterday and he said I get a refund',
  'Ich habe gestern mit einem Mitarbeiter gesprochen',
  "J'ai parlé à un conseiller hier",
  '客服电话是多少？',
  'what are your customer service hours?',
  'Sprechen Ihre Mitarbeiter Englisch?',
  'Spreken jullie medewerkers Engels?',
  'オペレーターの対応時間は何時ですか？',
  '人工客服几点上班？',
  '和客服说过了还是没解决',
  '상담원 운영 시간이 어떻게 되나요?',
  'I would like a person to sign for it',
  'I want to talk about my order',
  'Je voudrais parler de ma commande',
  'Quiero hablar de mi devolución',
  'Оператор сказал мне, что будет возврат',
  'Can someone help me with my order?',
  'Başka biri paketi alabilir mi?',
  'هل يمكن لشخص آخر استلام الطلب؟',
  'Do you have a human size mannequin?',
  'Can I return it in person?',
  'Does someone check the returns?',
  'I spoke to someone yesterday',
  'I want to know if a person can pick it up',
  'Ich möchte wissen, ob ein Mitarbeiter das prüfen kann',
  'Kann ich persönlich vorbeikommen?',
  '¿Puede otra persona recoger el pedido?',
  '我想知道人工客服的电话',
  // Found after the classes of eval/acts were added (availability, callbacks): each a person talked about.
  'Holt ein Mitarbeiter das Rad ab?',
  'kann ein Mitarbeiter das Rad holen?',
  'Ist der Kundenservice frei?',
  "the agent didn't call me back",
  'is there a person who can sign for it?',
  'czy jest konsultant w sklepie?',
  'tem atendente na loja?',
  'do your agents call back customers?',
];

/** The shared evaluation sets sit beside the repository (../shared/eval); a worktree one level deeper finds them one folder up. */
function sharedEvalDir(): string {
  for (let dir = path.resolve(__dirname, '../..'); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(path.dirname(dir), 'shared/eval');
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error('the shared evaluation sets (../shared/eval beside the repository) were not found');
}

/** Every customer message of a JSONL set: `turns[].user` (conversations) or `user` (single questions). */
function userMessagesOf(file: string): string[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      const record = JSON.parse(line) as { user?: string; turns?: { user: string }[] };
      return record.turns ? record.turns.map((turn) => turn.user) : [record.user!];
    });
}

const SMALL_TALK: SmallTalkAct[] = ['greeting', 'thanks', 'goodbye', 'acknowledgement'];
const actOf = (message: string) => recognizeConversationAct(message)?.act ?? null;
/** The messages not read as `act`: a case lists every miss at once. */
const notReadAs = (act: ReturnType<typeof actOf>, messages: readonly string[]) => messages.filter((message) => actOf(message) !== act);

describe('recognizing conversation acts', () => {
  const lists = (Object.keys(WORDINGS) as ConversationAct[]).flatMap((act) => [
    { act, list: 'first', wordings: WORDINGS[act] },
    { act, list: 'later', wordings: LATER_WORDINGS[act] },
  ]);
  it.each(lists)('recognizes at least 95% of the real-world wordings of $act ($list list), in many languages', ({ act, wordings }) => {
    expect(wordings.length).toBeGreaterThanOrEqual(30);
    const missed = wordings.filter((message) => actOf(message) !== act).map((message) => `${message} → ${actOf(message)}`);
    // At most 5% may be missed; beyond that the failure lists every miss.
    const allowed = Math.floor(wordings.length * 0.05);
    expect(missed.length <= allowed ? [] : missed).toEqual([]);
  });

  it('takes small talk alone or combined, naming the act that ends the message', () => {
    expect(recognizeConversationAct('ok thanks bye')).toEqual({ act: 'goodbye', language: 'en' });
    expect(recognizeConversationAct('super, danke dir!')).toEqual({ act: 'thanks', language: 'de' });
    expect(recognizeConversationAct('Guten Morgen 😊')).toEqual({ act: 'greeting', language: 'de' });
    expect(recognizeConversationAct('OK!!')).toEqual({ act: 'acknowledgement', language: null });
    expect(recognizeConversationAct('👍')).toEqual({ act: 'acknowledgement', language: null });
    expect(recognizeConversationAct('Hello? Is anyone there?')).toEqual({ act: 'greeting', language: 'en' });
    expect(recognizeConversationAct('no thanks, that is all')).toEqual({ act: 'goodbye', language: 'en' });
  });

  it('takes smileys alone as a nod and a wave as a greeting, but no other symbol', () => {
    for (const message of ['😊', '🙂🙂', '❤️', ' 😄 !']) expect(recognizeConversationAct(message)).toEqual({ act: 'acknowledgement', language: null });
    expect(recognizeConversationAct('👋')).toEqual({ act: 'greeting', language: null });
    // An angry face, a parcel or punctuation alone are no small talk: they go on to search.
    for (const message of ['😡', '📦', '😊😡', '?!', '']) expect(recognizeConversationAct(message)).toBeNull();
  });

  it('reads requests the wordings do not list with its second reader, beside a person or a callback', () => {
    // Each read as a question by the wordings alone (53bca86): the model (acts-model.ts) reads them.
    for (const message of ['could a human take this over, please', 'human pls take over', 'un humain doit reprendre la conversation svp', 'voglio un umano che mi aiuti']) {
      expect(actOf(message)).toBe('ask_for_person');
    }
    expect(recognizeConversationAct('un humain doit reprendre la conversation svp')?.language).toBe('fr');
    // The same pieces asked about, told, turned around or without a person stay questions.
    for (const message of ['will a human take over my return?', 'a human took over my last order', 'the human on the phone was rude', "I don't want a human to take over", 'please take over my old contract']) {
      expect(actOf(message)).toBeNull();
    }
  });

  it('lets the second reader stand beside someone being reached anywhere, unless the message asks what or who, or asks about no person of the shop', () => {
    // No wording of contact with the customer named, so the narrow anchors do not hold them (3bcc9c7 searched them).
    expect(actOf('por favor alguien que me atienda')).toBe('ask_for_person');
    for (const message of ['¿Quién atiende las reclamaciones en vuestra tienda?', 'can the courier ring me before he comes?', 'Did a colleague of yours call me yesterday?', 'who can I speak to about a refund?']) {
      expect(actOf(message)).toBeNull();
    }
  });

  it('takes asking to escalate as asking for a person, and a compliment of the service as small talk', () => {
    for (const message of ['please escalate my case, order 4411 is three weeks late', 'Eskalieren Sie das bitte, die Reklamation liegt seit Wochen', 'graag escaleren']) {
      expect(actOf(message)).toBe('ask_for_person');
    }
    for (const message of ['how do I escalate a complaint?', 'my complaint was escalated last week, any news?', 'wurde das eskaliert?']) expect(actOf(message)).toBeNull();
    expect(recognizeConversationAct('great service, thanks!')).toEqual({ act: 'thanks', language: 'en' });
    expect(actOf('服务很棒')).toBe('acknowledgement');
    for (const message of ['great service but where is my parcel?', 'complimenti, quanto costa la spedizione?', '好评怎么写？']) expect(actOf(message)).toBeNull();
  });

  it('reads small talk the wordings do not read whole with its second reader, when the message is mostly small talk', () => {
    // Each a question by the wordings alone (3bcc9c7): "have a lovely weekend" and "you have been a star" are listed nowhere.
    expect(recognizeConversationAct('Thank you so much, you have been a star. Have a lovely weekend!')).toEqual({ act: 'thanks', language: 'en' });
    expect(recognizeConversationAct('Merci mille fois, vous avez été super. Excellente journée !')).toEqual({ act: 'thanks', language: 'fr' });
    expect(recognizeConversationAct('非常感谢，你真是太好了，周末愉快')).toEqual({ act: 'thanks', language: 'zh' });
    // A matter beside the thanks, a negation, a question or a message that is mostly something else stay for search.
    for (const message of ['thanks, and shipping to Austria', 'thanks, my parcel arrived broken', 'Danke, aber das Paket fehlt noch', 'Good decisions', 'hi, my order 1234 is late', 'thanks a lot, you have been a star. have a lovely weekend?']) {
      expect(actOf(message)).toBeNull();
    }
  });

  it('keeps the second readers as `npm run train:acts` trains them from the labelled sets', () => {
    expect(fs.readFileSync(ACTS_MODEL_PATH, 'utf8')).toBe(actsModelText());
  });

  it('takes a manager or supervisor asked for as a person', () => {
    expect(recognizeConversationAct('ich will mit ihrem chef sprechen')?.act).toBe('ask_for_person');
    expect(recognizeConversationAct('quiero hablar con el gerente')?.act).toBe('ask_for_person');
    expect(recognizeConversationAct('叫你们经理来')?.act).toBe('ask_for_person');
    expect(recognizeConversationAct('責任者を出してください')?.act).toBe('ask_for_person');
  });

  it('names the language the wording belongs to', () => {
    expect(recognizeConversationAct('vielen dank')?.language).toBe('de');
    expect(recognizeConversationAct('merci beaucoup')?.language).toBe('fr');
    expect(recognizeConversationAct('grazie mille')?.language).toBe('it');
    expect(recognizeConversationAct('dank je wel')?.language).toBe('nl');
    expect(recognizeConversationAct('ありがとう')?.language).toBe('ja');
    expect(recognizeConversationAct('谢谢')?.language).toBe('zh');
    expect(recognizeConversationAct('감사합니다')?.language).toBe('ko');
    expect(recognizeConversationAct('спасибо')?.language).toBe('ru');
    expect(recognizeConversationAct('Mitarbeiter bitte')).toEqual({ act: 'ask_for_person', language: 'de' });
    expect(recognizeConversationAct('人工客服')).toEqual({ act: 'ask_for_person', language: 'zh' });
    expect(recognizeConversationAct('je veux parler à un agent')).toEqual({ act: 'ask_for_person', language: 'fr' });
    // Chinese and Japanese share characters: "有人吗" (anyone there?) is Chinese, and a greeting.
    expect(recognizeConversationAct('有人吗？')).toEqual({ act: 'greeting', language: 'zh' });
    expect(recognizeConversationAct('有人工客服吗')).toEqual({ act: 'ask_for_person', language: 'zh' });
    expect(recognizeConversationAct('有人対応をお願いします')).toEqual({ act: 'ask_for_person', language: 'ja' });
  });

  it('names no language for a wording that several languages share, so the conversation decides', () => {
    expect(recognizeConversationAct('hallo')).toEqual({ act: 'greeting', language: null });
    expect(recognizeConversationAct('hej')).toEqual({ act: 'greeting', language: null });
    expect(recognizeConversationAct('perfekt')).toEqual({ act: 'acknowledgement', language: null });
    expect(recognizeConversationAct('agent')).toEqual({ act: 'ask_for_person', language: null });
  });

  it('is insensitive to case, accents, "ae/oe/ue", repeated letters and common typos', () => {
    for (const message of ['TSCHÜSS', 'tschuess', 'tschuss', 'Tschüüüss']) expect(actOf(message)).toBe('goodbye');
    for (const message of ['thaaaanks', 'thnx', 'thanx', 'tahnks', 'Thank youuu']) expect(actOf(message)).toBe('thanks');
    for (const message of ['dziekuje', 'tesekkurler', 'merci beaucoups', 'gracais']) expect(actOf(message)).toBe('thanks');
    for (const message of ['i want to talk to a humen', 'can i speak to an agnet', 'Mitarbieter bitte']) expect(actOf(message)).toBe('ask_for_person');
  });

  it('takes a person named after a clarifier ("I mean", "also") as a request, and not a question about one', () => {
    for (const text of ['is anyone there? a real person i mean', 'ist da jemand? also ne echte person', 'ich meine einen echten Menschen']) {
      expect(recognizeConversationAct(text)?.act).toBe('ask_for_person');
    }
    expect(recognizeConversationAct('what do you mean by a real person?')).toBeNull();
    expect(recognizeConversationAct('also ich will wissen, ob eine Person das Paket abholen kann')).toBeNull();
  });

  it('leaves a message that also asks or tells something to search', () => {
    const recognized = notReadAs(null, NOT_ACTS);
    expect(recognized).toEqual([]);
  });

  it('asks for a person even when the message also states the problem', () => {
    expect(actOf('my parcel is broken, I want to talk to a human')).toBe('ask_for_person');
    expect(actOf('Das Paket ist kaputt angekommen. Ich möchte bitte mit einem Mitarbeiter sprechen')).toBe('ask_for_person');
    expect(actOf('hi, I have been waiting for two weeks, get me a real person')).toBe('ask_for_person');
    expect(actOf('Your bot does not understand me. Human please!')).toBe('ask_for_person');
    expect(actOf('thanks, can I also talk to a human about this?')).toBe('ask_for_person');
    expect(actOf('Hallo, ich möchte mit einem Mitarbeiter sprechen')).toBe('ask_for_person');
  });

  it('takes asking the shop to call or write as a request, and asking how to reach the shop as a question', () => {
    // The shop is asked to act: the customer is the one to be reached, on a number or a channel at most.
    for (const text of ['can someone email me?', 'kann mich bitte jemand anrufen', 'können Sie mir eine E-Mail schicken?', 'ring upp mig på 070 123 45 67', 'rappelez moi au 06 12 34 56 78']) {
      expect(actOf(text)).toBe('ask_for_person');
    }
    // The customer asks how, when or whether they may reach the shop, or wants something else sent.
    for (const text of [
      'can i email you?',
      'can you email me the invoice?',
      'kann ich den Kundenservice anrufen?',
      'how do I call customer service?',
      'wann ist die Hotline erreichbar?',
      'comment appeler le service client ?',
      'the courier never called me back',
      'niemand hat mich angerufen',
      'can the courier call me at 0151 2345678?',
      'is customer service available 24/7?',
    ]) {
      expect(actOf(text)).toBeNull();
    }
  });

  it('takes asking how to talk to a person as asking for one: a person answers it best', () => {
    for (const text of ['how can I talk to a human?', 'where can i chat with a real person', 'wie kann ich mit einem Mitarbeiter sprechen?', 'comment parler à un conseiller ?']) {
      expect(actOf(text)).toBe('ask_for_person');
    }
    // Asking whether one already talks to a person is a question, with a wording of contact or without.
    expect(actOf('我是在跟真人聊天吗')).toBeNull();
    expect(actOf('am I talking to a real person?')).toBeNull();
  });

  it('reads a word of one language that is something else in another as the language it is asked in', () => {
    // Danish "tak" is also a Czech filler; Norwegian "noen" folds to "non" (not, in French and Italian), so only its wordings around it name someone; Swedish "personal" is staff, English "personal" is not a person.
    expect(recognizeConversationAct('tak')?.act).toBe('thanks');
    expect(actOf('kan noen ringe meg?')).toBe('ask_for_person');
    expect(actOf('får jag prata med personal')).toBe('ask_for_person');
    expect(actOf('can i update my personal details?')).toBeNull();
  });

  it('reads departments, taking over, a relative "who", a chat turned away and a dropped letter as requests', () => {
    const requests = [
      'Dzień dobry, czy mógłbym zostać połączony z działem zwrotów?',
      'kan iemand van support dit overnemen',
      'posso parlare col titolare del negozio?',
      'Would you mind connecting me with a colleague who handles warranty claims?',
      "mandatemi una mail per l'ordine 61028 per favore, non ho voglia di chattare",
      'opertor please',
      'Is anyone from the customer care team available to take over this conversation?',
    ];
    expect(notReadAs('ask_for_person', requests)).toEqual([]);
    // Still questions, stories or a person turned away: "will" is Dutch "wil" (want), "manger" is French for "eat".
    const notRequests = [
      'will a human take over my return?',
      'please take over my old contract',
      "I don't want a human to take over",
      'je veux manger quelque chose',
      'non voglio parlare con un operatore',
      'Quiero regalarle un reloj a mi padre. ¿Podéis enviarlo directamente a su dirección con una tarjeta de regalo?',
      'I would like a person to sign for it',
    ];
    expect(notReadAs(null, notRequests)).toEqual([]);
    // A solved problem and a bow are small talk; "works?" alone still asks.
    expect(['grazie, tutto risolto 👍', 'dzieki, juz dziala 👍', '🙇‍♀️'].map((text) => recognizeConversationAct(text)?.act)).toEqual(['thanks', 'thanks', 'thanks']);
    expect(recognizeConversationAct('działa?')).toBeNull();
  });

  it('reads the bot refused in a clause of its own, "geen zin in", German "wer" after "mich" and "someone from your place" as requests, a person told of as none, and praise of the shop as small talk', () => {
    const requests = [
      'jemand da der mir wirklich helfen kann?? kein bot bitte',
      'no bot please',
      'Hallo, mijn laptop kwam binnen met een gebarsten scherm. Is er misschien een servicemedewerker beschikbaar?',
      'ik heb geen zin in een robot',
      'Ik wil dat dit geëscaleerd wordt.',
      'dá pra escalar isso pra alguém acima de você?',
      'Czy jakaś miła pani ze sklepu mogłaby do mnie zadzwonić w sprawie wymiany rozmiaru?',
      'de eigenaar van de winkel graag',
      'kann mich ma wer anrufen bin aufm bau und kann nich tippen',
      'gibts bei euch auch echte leute oder nur bots??',
      "j'ai eu une reaction a la creme, quelqu'un de chez vous peut me contacter ?",
      'pouvez vous me faire rappeler demain matin',
    ];
    expect(notReadAs('ask_for_person', requests)).toEqual([]);
    // The bot named in a sentence, a person met and told of, praise with a question or a complaint.
    const notRequests = ["I'm not a bot", 'are you not a bot?', 'the human on the phone was rude', 'der Mitarbeiter am Telefon war unhöflich', 'love your products, shipping to spain?', 'super sklep, ale paczka nie doszła', 'wer hat mich angerufen?', 'Je parle à un humain ou à un robot là ?'];
    expect(notReadAs(null, notRequests)).toEqual([]);
    const praise = ['Super sklep, polecam', 'Leuke webshop, echt een aanrader', 'Amo essa loja, vocês são demais', '你们家东西真不错，赞一个', 'great service, love the new website', 'super boutique, je recommande'];
    expect(notReadAs('acknowledgement', praise)).toEqual([]);
  });
  it('reads a callback followed by what it is about as a request, praise that closes a compliment and a smiling emoticon as small talk, and a person of the customer\'s own as none', () => {
    const requests = ['can someone call me about my order?', 'ruft mich bitte heut nachmittag an, geht um die bestellung 55120', 'kan er iemand mij opbellen over mijn bestelling'];
    expect(notReadAs('ask_for_person', requests)).toEqual([]);
    // Reaching out about something is asked of the shop only; a sarcastic "well done" after a complaint is no praise.
    const notRequests = ['can the courier call me about my parcel?', 'how do I call customer service about a refund?', 'my agent in Germany will sign for the delivery', 'mein Berater hat gesagt, das geht'];
    expect(notReadAs(null, notRequests)).toEqual([]);
    const praise = ['Le scarpe sono stupende e sono arrivate in due giorni, bravissimi!', 'Amei o batom, chegou rapidinho e super bem embalado. Parabéns!', '口红颜色超正，快递也好快，好评！', ':-)', '(^^)/'];
    expect(notReadAs('acknowledgement', praise)).toEqual([]);
    expect(notReadAs(null, ['my parcel arrived broken, well done', 'where is my order? bravo', ':(', 'Paket kaputt angekommen. Großes Lob!'])).toEqual([]);
  });

  it('reads a person asked for "or just a bot" and a bot refused in the first person as requests, and a bow as a nod', () => {
    const requests = ['is there a real person or just a bot?', 'hay alguien de verdad ahi o solo es un bot?', 'zit er ook een echt mens achter of alleen een bot', 'ik praat niet met een bot', 'nie rozmawiam z botami'];
    expect(notReadAs('ask_for_person', requests)).toEqual([]);
    // Asking whether one is a bot, or "or" before anything but the bot, asks for no one.
    const notRequests = ['is this a bot or a real person?', 'am I talking to a human or a bot?', 'is there a human size chart or just the bot?', 'ik praat niet met een medewerker, maar met mijn buurman'];
    expect(notReadAs(null, notRequests)).toEqual([]);
    expect(['m(_ _)m', 'okok'].map((text) => actOf(text))).toEqual(['acknowledgement', 'acknowledgement']);
  });

  it('reads praise the small-talk model is all but sure of as small talk unless a contrast turns it, and requests for departments, callbacks asked of someone and bare slang', () => {
    // Each a question at 8cdec88: most of it is praise in the customer's words, with no praise closing it.
    expect(actOf('thanks for the quick delivery, the shoes fit')).toBe('thanks');
    expect(notReadAs('acknowledgement', ['Super Laden, die Schuhe sind top verarbeitet!', 'parcel came a day early, you guys rock'])).toEqual([]);
    // "but", "aber", "但是", "mas" turn the praise to a matter; a complaint stays one.
    const complaints = ['Great shop, but the box was damaged', 'super laden, aber das paket war kaputt', '鞋子很好穿，但是尺码小了', 'Amei o perfume, mas veio errado', 'great service, my package came crushed'];
    expect(notReadAs(null, complaints)).toEqual([]);
    const requests = [
      'mi mettete in contatto col reparto resi?',
      'me pasas con facturacion?',
      "Pouvez-vous demander à quelqu'un de me téléphoner pour ma commande de livres ?",
      'pouvez vous m envoyer un mail quand un agent sera dispo',
      'un agent humain est dispo ?',
      'Kann mich bitte jemand von Ihnen telefonisch beraten wegen der Matratze?',
      'ich will keinen bot',
      '人間出して',
      'おぺれーたー',
      '转仁工',
    ];
    expect(notReadAs('ask_for_person', requests)).toEqual([]);
    expect(notReadAs(null, ["pouvez-vous m'envoyer la facture ?", 'vous pouvez me dire où est mon colis ?'])).toEqual([]);
  });

  it('ends a negation at a space between Chinese characters unless it stands right before it, and lets a bot, "there" or "is there" stand in praise', () => {
    // "不太会用手机" (not good with phones) is a thought of its own; "不用 找人工了" still turns the person away.
    const requests = ['你好 我年纪大了不太会用手机 能不能找个人打电话给我 我订的书还没到 谢谢', '我的鞋尺码发错了 问了好几次都没人理 能不能打电话给我'];
    expect(notReadAs('ask_for_person', requests)).toEqual([]);
    expect(notReadAs(null, ['不用 找人工了 谢谢', '我不要 人工客服', '人工客服 几点上班'])).toEqual([]);
    // "boots" folds to "bots", "da" is "there", "ya" is French "there is": none of them asks for anything in praise.
    const praise = ['wow the delivery was super fast and the boots are gorgeous 😍', 'Wahnsinn, Sonntag bestellt und Montag schon da. Top!', 'Listo, ya está todo solucionado. Gracias y chao', '丁寧に対応していただきありがとうございました。良い夜を！'];
    expect(praise.map((text) => actOf(text) !== null && actOf(text) !== 'ask_for_person')).toEqual([true, true, true, true]);
  });

  it('lets a request typed on after a problem escape its negation, a refused bot stand beside a person alone, and "what" follow being reached', () => {
    const requests = [
      "bonjour jai commandé des baskets en 40 recu du 42 et le formulaire de retour marche pas pouvez vous me passer quelqu'un du service retour",
      'mensch bitte kein bot',
      'Kann mich bitte jemand anrufen und mir erklären, was ich tun muss?',
    ];
    expect(notReadAs('ask_for_person', requests)).toEqual([]);
    // The negation after the asking still turns the request around; "what" with nobody reached still asks.
    const notRequests = ['je ne peux pas parler à un humain', 'ich kann nicht mit einem Mitarbeiter sprechen', 'wer hat mich angerufen und was wollte er?', 'hat mich jemand angerufen? was wollte er?'];
    expect(notReadAs(null, notRequests)).toEqual([]);
  });

  it('lets a put-me-through typed after a problem escape its negation, "without" negate only what follows, someone be asked for, reached by a medium or asked "is there a way"', () => {
    const requests = [
      'me llegaron las zapatillas rotas y el formulario de devolucion no funciona pasame con alguien ya',
      'ho ricevuto le scarpe sbagliate e il reso non va passatemi qualcuno per favore',
      'buty przyszly w zlym rozmiarze a formularz zwrotu nie dziala dajcie mi kogos kto to ogarnie',
      'ten czat jest bez sensu dawaj czlowieka',
      'Can I get one of your colleagues on the line?',
      'y a moyen d\'avoir qqn au tel ? c\'est pour une valise cassée',
      'どなたか電話で返品の仕方を教えていただけませんか',
      'die wil ik liever telefonisch met iemand doornemen',
      'Tem como um colega seu que entenda de notebook me atender?',
    ];
    expect(notReadAs('ask_for_person', requests)).toEqual([]);
    // A negation right before the request, or holding it, still turns it around; someone wanted does something; a medium asked about is a question.
    const notRequests = [
      'no me pases con nadie',
      'non voglio parlare con un operatore',
      'nie chcę rozmawiać z człowiekiem',
      'sin hablar con un humano no se resuelve',
      'can I get someone to sign for the parcel?',
      'does someone answer by phone?',
      'Tem como pagar com pix?',
    ];
    expect(notReadAs(null, notRequests)).toEqual([]);
  });

  it('reads being reached, negated in a condition, as asked for and on a condition as asked for later, a person "who can help" as asked for, a time as one figure, and two words of praise as no small talk', () => {
    const requests = [
      'if you don\'t call me back today I\'ll cancel',
      'si no me llaman hoy cancelo',
      'i want to talk to a person who can help',
      'Kunnen jullie me vanavond na 19:00 even bellen? Het gaat om de montage van de kast.',
      'How do I get through to a human on here?',
      'Hoe kom ik in contact met een echte medewerker?',
      'call me back if possible',
      'could you ring me to see if it can be fixed',
    ];
    expect(notReadAs('ask_for_person', requests)).toEqual([]);
    // A condition turns only being reached around, and "only if" asks for later; a person told of, who did something, is none.
    const notRequests = [
      'se non volete parlare con un operatore potete usare il modulo',
      'if the courier doesn\'t call me, can I pick it up?',
      'My order number is ZX-17496. Please contact me by SMS only if anything changes.',
      'My order number is ZX-95682. Please contact me by WhatsApp if anything changes.',
      'the person who delivered my parcel was rude',
      'Good decisions',
    ];
    expect(notReadAs(null, notRequests)).toEqual([]);
  });

  it('reads thanks that name the shop\'s people, and a Japanese letter of thanks, as small talk, and not a complaint about them', () => {
    const thanks = ['Thanks, your colleague sorted it. Have a great day!', 'いつも素敵なお洋服をありがとうございます。先日届いたワンピースもとても気に入っております。スタッフの皆様によろしくお伝えください。'];
    expect(thanks.map((text) => actOf(text) !== null && actOf(text) !== 'ask_for_person')).toEqual([true, true]);
    expect(notReadAs(null, ['thanks, the agent on the phone was rude', 'Danke, aber der Mitarbeiter war unfreundlich', 'merci, votre conseiller ne m\'a jamais rappelé'])).toEqual([]);
  });

  it('finds a request for a person at the start or the end of a long message', () => {
    const complaint = 'The parcel came late and the box was wet. '.repeat(100);
    expect(actOf(`${complaint}I want to talk to a human`)).toBe('ask_for_person');
    expect(actOf(`Mitarbeiter bitte! ${complaint}`)).toBe('ask_for_person');
    expect(actOf(complaint)).toBeNull();
  });

  it('does not take a mention of people (or a question whether one is reading) for a request to speak to one', () => {
    const recognized = notReadAs(null, MENTIONS_OF_PEOPLE);
    expect(recognized).toEqual([]);
  });

  it('recognizes no question of the shared evaluation sets or of the help-center dialogues as an act', () => {
    const dir = sharedEvalDir();
    const files = [
      ...fs.readdirSync(dir).flatMap((set) =>
        ['cases.jsonl', 'unanswerable.jsonl'].map((name) => path.join(dir, set, name)).filter((file) => fs.existsSync(file)),
      ),
      path.resolve(__dirname, '../../eval/help-center-dialogues.jsonl'),
    ];
    const questions = files.flatMap(userMessagesOf);
    expect(files.length).toBeGreaterThanOrEqual(9);
    expect(questions.length).toBeGreaterThan(1000);
    // The help-center dialogues ask this one to find the contact article; issue 41 names it
    // as the very request for a person that must be handed over instead of searched.
    const REQUEST_FOR_A_PERSON = 'Can I talk to a real human?';
    expect(questions).toContain(REQUEST_FOR_A_PERSON);
    expect(actOf(REQUEST_FOR_A_PERSON)).toBe('ask_for_person');
    const recognized = questions.filter((question) => question !== REQUEST_FOR_A_PERSON && recognizeConversationAct(question) !== null);
    expect(recognized).toEqual([]);
  });

  it("recognizes none of the development shop's questions as an act, and every one of its small talk and requests", () => {
    const turns = ['en', 'de'].flatMap((language) =>
      fs
        .readFileSync(path.resolve(__dirname, `../../eval/dev-shop/${language}/dialogues.jsonl`), 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .flatMap((line) => (JSON.parse(line) as { turns: { user: string; type: string }[] }).turns),
    );
    expect(turns.length).toBeGreaterThan(150);
    const kindOf = (message: string) => {
      const act = actOf(message);
      if (act === null) return 'question';
      return act === 'ask_for_person' ? 'ask_person' : 'small_talk';
    };
    const wrong = turns
      .map((turn) => ({ ...turn, expected: turn.type === 'small_talk' || turn.type === 'ask_person' ? turn.type : 'question' }))
      .filter((turn) => kindOf(turn.user) !== turn.expected)
      .map((turn) => `${turn.user} → ${kindOf(turn.user)}`);
    expect(wrong).toEqual([]);
  });

  /** Hostile shapes: long runs of one character, of act words, of person-words and contact words without punctuation, of CJK. */
  const hostile = fc.oneof(
    fc.string({ maxLength: 4000, unit: 'binary' }),
    fc.string({ maxLength: 4000, unit: 'grapheme' }),
    fc.tuple(fc.constantFrom('a', 'e', ' ', '人', 'ー', '👍', "'", '-', 'ü', '\u0301', '\u3000', ':)', 'ab', 'humen '), fc.integer({ min: 1, max: 4000 })).map(([c, n]) => c.repeat(n).slice(0, 4000)),
    fc.integer({ min: 1, max: 4000 }).map((n) => 'qwertzuiopasdfghjklyxcvbnm'.repeat(160).slice(0, n)),
    fc
      .array(fc.constantFrom('talk to', 'a', 'human', 'thanks', 'ok', 'bitte', 'mitarbeiter', '人工', '转', 'not', 'real person', 'please', 'humen', 'thaaanks', 'you', ',', '!', 'i spoke to', 'anyone from', 'billing', 'how'), { maxLength: 800 })
      .map((words) => words.join(' ').slice(0, 4000)),
  );

  it('reads asking how to reach a human as a request, not how to reach customer service; "am I talking to…" as a question; being written to on a channel named; and praise holding a negation or a "please"', () => {
    const requests = [
      'how do I get hold of a real human here',
      'Wie erreiche ich hier einen echten Menschen?',
      // Asking how in another clause asks nothing of the person.
      'Ich weiß nicht, wie das geht. Kann mir bitte ein Mitarbeiter helfen?',
      'czy możecie do mnie napisać na whatsappie?',
      'LINEで連絡もらえますか？',
      'Ik wil dat iemand mij morgen belt.',
    ];
    expect(notReadAs('ask_for_person', requests)).toEqual([]);
    const questions = ['how do I call customer service?', 'wie erreiche ich den kundenservice telefonisch?', 'Bin ich gerade mit einem Menschen verbunden?', 'ben ik met een echt persoon aan het chatten?', 'am I talking to a real person?'];
    expect(notReadAs(null, questions)).toEqual([]);
    // "真不错" (really not bad) holds a negation, "よろしくお願いします" a "please"; "pulls" is no "plus" (no longer).
    expect(actOf('你们家的茶真不错')).toBe('acknowledgement');
    expect(actOf('いつもありがとうございます。これからもよろしくお願いします。')).toBe('thanks');
    expect(actOf('les pulls sont superbes, merci')).toBe('thanks');
    // Wordings are read within their clause: "好好" across the comma would hide the closing praise.
    expect(actOf('你们家鞋子质量真好，好评！')).toBe('acknowledgement');
  });

  it('reads someone of a team no list names as a person of the shop, asked for only where the message asks for one', () => {
    expect(notReadAs('ask_for_person', ['is anyone from accounts available?', 'jemand aus der Buchhaltung da?', 'kogoś z działu faktur proszę'])).toEqual([]);
    expect(notReadAs(null, ['someone from DHL stole my parcel', 'Did someone from your team call me yesterday?', 'Someone in the comments said it runs small'])).toEqual([]);
  });

  it('reads a person the customer already talked to as one met, not one asked for', () => {
    expect(notReadAs(null, ['ho parlato con un operatore ieri, mi ha detto di aspettare', "J'ai parlé à un conseiller hier"])).toEqual([]);
    expect(actOf('I spoke to an agent yesterday, can I talk to a manager now?')).toBe('ask_for_person');
  });

  it('reads a human named beside the person-word, one asked for now or about something, and praise of the shop in its own words', () => {
    const requests = [
      // A human named by the word beside the person-word, asked how to reach: asks for one.
      'Wie erreiche ich einen echten Mitarbeiter?',
      // Dutch "een" folds to Finnish "en", a negation only of Finnish wordings.
      'hoe kom ik bij een echte medewerker terecht?',
      // Asked for now, or about something ("with a return", "when you have looked at it").
      'Y a-t-il un conseiller disponible en ce moment ?',
      '¿Hay algún agente disponible ahora mismo?',
      'can i get a human to help me with a return',
      "Coucou, quelqu'un peut m'envoyer un SMS quand vous aurez regardé mon dossier ?",
      'graag een belletje terug ivm bestelling 88123',
      'mensch pls 🙏',
      // Someone to call the relative the customer writes for; as soon as possible; a purpose that closes.
      'Czy ktoś mógłby do niej zadzwonić?',
      'Alguém lhe pode telefonar?',
      "Vorrei essere richiamata al più presto, il numero è quello dell'account.",
      'Is er nu iemand beschikbaar om mij te woord te staan?',
    ];
    expect(notReadAs('ask_for_person', requests)).toEqual([]);
    const questions = ['Wie erreiche ich den Kundenservice?', 'can i get a human to sign for my parcel', 'el anuncio comercial de la tele es bonito', 'can the courier call me when he arrives?', 'did the courier call her yesterday?', 'tem gente que reclama do tamanho?', 'is the jacket back in stock soon'];
    expect(notReadAs(null, questions)).toEqual([]);
    expect(notReadAs('acknowledgement', ['son lo más 🙌', 'Just wanted to say your packaging is gorgeous, made my day', 'sztos obsługa 🔥'])).toEqual([]);
    // Praise with a problem or a question is no small talk.
    expect(notReadAs(null, ['made my day, but the box was crushed', '¿cuál es la mejor tienda para bicis?', 'echt de beste webshop, maar mijn pakket is kapot'])).toEqual([]);
  });

  it('never throws on hostile input up to 4,000 characters, and its work grows linearly with the length', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        expect(() => recognizeConversationAct(text)).not.toThrow();
        // Steps (characters read, wordings compared), not time: a fixed number per character.
        expect(recognitionSteps(text)).toBeLessThanOrEqual(STEPS_PER_CHARACTER * (text.length + 1));
      }),
      { numRuns: 400 },
    );
  });

  it('takes the same steps per character on a long message as on a short one', () => {
    const sentence = 'ok thanks, can I talk to a real human please? Mitarbeiter bitte 人工客服 ';
    const perCharacter = (text: string) => recognitionSteps(text) / text.length;
    const short = perCharacter(sentence);
    // Within the first 2,000 characters, which the matcher reads whole.
    const long = perCharacter(sentence.repeat(Math.floor(1900 / sentence.length)));
    expect(long).toBeLessThanOrEqual(short * 1.5);
  });
});

/** The most steps the matcher may take per character of a message (a constant: the work is linear). */
const STEPS_PER_CHARACTER = 100;

describe('the built-in replies to small talk', () => {
  const REQUIRED = ['de', 'fr', 'es', 'it', 'nl', 'pt', 'pl', 'tr', 'ja', 'zh', 'en', 'ko', 'ru'];

  it('exist for every small-talk act in every required language, each its own short text', () => {
    for (const language of REQUIRED) expect(ACT_REPLY_LANGUAGES).toContain(language);
    for (const language of ACT_REPLY_LANGUAGES) {
      const replies = SMALL_TALK.map((act) => defaultActReply(act, language));
      for (const reply of replies) {
        expect(reply.trim().length).toBeGreaterThan(1);
        expect(reply.length).toBeLessThanOrEqual(120);
      }
      expect(new Set(replies).size).toBe(SMALL_TALK.length);
      if (language !== 'en') expect(replies).not.toEqual(SMALL_TALK.map((act) => defaultActReply(act, 'en')));
    }
  });

  it('offer help after a greeting and ask whether there is anything else after thanks', () => {
    expect(defaultActReply('greeting', 'en')).toMatch(/help/i);
    expect(defaultActReply('thanks', 'en')).toMatch(/welcome/i);
    expect(defaultActReply('thanks', 'en')).toMatch(/anything else/i);
    expect(defaultActReply('greeting', 'de')).toMatch(/helfen/i);
    expect(defaultActReply('thanks', 'de')).toMatch(/gern/i);
  });

  it('fall back to English for a language they do not know, and accept a region subtag', () => {
    expect(defaultActReply('goodbye', 'xx')).toBe(defaultActReply('goodbye', 'en'));
    expect(defaultActReply('thanks', 'de-AT')).toBe(defaultActReply('thanks', 'de'));
    expect(defaultActReply('thanks', 'PT')).toBe(defaultActReply('thanks', 'pt'));
  });

  it('read the recognized language of a wording', () => {
    const recognized = recognizeConversationAct('merci beaucoup')!;
    expect(defaultActReply(recognized.act as SmallTalkAct, recognized.language!)).toBe(defaultActReply('thanks', 'fr'));
  });
});
