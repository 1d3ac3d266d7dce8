"""What a briefing is about, in both languages: words that name the same subject, grouped.

The static embedding sees that "prize" is near "award" in English; it barely sees that "prêmio" is
too, or that "mora" and "based" ask the same thing. These groups are the subjects members' briefings
are made of (what they do, tools, languages, availability, where, history, study, clients, partners,
refusals, ...), each a set of English and Brazilian Portuguese words (folded, stemmed when matched).
A word in a group adds the group as a term both to a note and to a question, so BM25 ranks a note
that speaks of the same subject in other words, or in the other language. The groups are a
vocabulary of subjects, not of questions: none names a member, a note or a phrasing.
"""

from __future__ import annotations

GROUPS: dict[str, str] = {
    "occupation": "profession profissao occupation ocupacao career carreira living designer engineer engenheiro "
                  "engenheira developer desenvolvedor desenvolvedora programmer programador programadora translator translation "
                  "tradutor tradutora interpreter interprete consultant consultora consultor",
    "software": "software programs programas aplicativo app apps tool tools ferramenta ferramentas adobe indesign illustrator "
                "figma photoshop canva memoq trados sketch",
    "computer": "computer computador laptop notebook thinkpad mac macbook linux windows fedora ubuntu os editor "
                "neovim vim vscode emacs ide setup",
    "coding": "programming programo programa programar code coding codigo python golang rust java javascript "
              "typescript ruby kotlin linguagem linguagens stack",
    "speaking": "speak speaks fala falar falo idioma idiomas lingua linguas tongue tongues english ingles french "
                "frances portuguese portugues spanish espanhol german alemao hindi italian italiano fluent fluente "
                "natively nativo nativa conversational conversar chat",
    "replies": "back reply replies respond responde responder respondo resposta answer answers retorno retorna demora "
               "quick quickly fast rapido message messages mensagem mensagens email",
    "weekend": "weekend weekends saturday sabado sunday domingo fins",
    "hours": "hours horario hour hora horas night noite evening working uteis weekday weekdays",
    "location": "live lives mora morar moro vive vivo based city cidade reside town zone fuso timezone located",
    "workplace": "office escritorio studio estudio home casa remote remoto",
    "before": "before antes previously former formerly employed emprego empregada empregado fixo employer "
              "trabalhava trabalhei worked",
    "independent": "independent independente autonoma autonomo freelance freelancer freelancing own",
    "recognition": "famous famosa famoso known conhecido conhecida prize prizes premio premios award awards "
                   "premiado premiada won ganhou recognition reconhecimento notable talks",
    "clients": "client clients cliente clientes customer customers companies empresa empresas brands marcas "
               "publishers editoras",
    "nonprofit": "nonprofit nonprofits ngo ngos ong ongs charity charities humanitarian cross cruz",
    "study": "study studied estudou estudar degree graduated formada formado formacao faculdade university "
             "universidade college masters mestrado phd doutorado graduacao academic academically trained school "
             "escola abroad",
    "teaching": "teach teaches teaching ensina ensinar professor professora aula aulas lessons classes curso course "
                "students alunos",
    "partners": "partner partners parceira parceiro parceria colaborador colaboradora collaborate colabora "
                "dupla pair together junto bring refer indica indicar recommend recomenda alone sozinha sozinho",
    "illustration": "illustration illustrator illustrations ilustracao ilustracoes ilustrar ilustradora ilustrador "
                    "desenhos desenho drawing draw pictures imagens",
    "refusal": "refuse refuses recusa recusar avoid avoids evita evito decline declines turn turns down won't "
               "wont pega pego reject ethics etica not nao never nunca don doesn won",
    "vice": "tobacco cigarro cigarette cigarettes tabaco betting apostas aposta casino cassino gambling weapons "
            "armas arma crypto bitcoin cripto trading ads anuncio anuncios tracking rastreamento",
    "files": "files arquivos arquivo source editable editaveis abertos originals originais manual guide guidelines "
             "pdf handover",
    "printing": "print printed printing impressao impresso grafica printer printers proof proofs prova provas paper "
                "papel colours colors cores",
    "support": "support suporte bug bugs fix fixes corrige correcao correcoes breaks quebra problema problemas "
               "maintenance manutencao launch",
    "speaking_events": "talk talks palestra palestras presentation apresentou apresentacao conference conferences "
                       "conferencia speaker spoken keynote",
    "open_source": "open source aberto github library libraries biblioteca bibliotecas stars estrelas maintain "
                   "maintains mantenho mantem publish published package",
    "testing": "test tests testing teste testes automated automatizado automatizados review reviews revisa revisao "
               "quality",
    "cloud": "cloud nuvem aws amazon azure gcp certification certificado certificacao certified terraform "
             "infrastructure infra kubernetes",
    "database": "database databases banco postgres postgresql mysql clickhouse sql columnar analytics",
    "sworn": "sworn juramentada juramentado official oficial cartorio court tribunal notarized certified",
    "fields": "specialise specialize specialty specialties especialidade especialidades especializa area areas "
              "field fields subjects assuntos medical medico medica laudo laudos doctor legal juridico juridica "
              "contratos law literature literatura novel novels ficcao fiction",
    "pace": "words palavras daily diario speed velocidade ritmo pace output produtividade throughput",
    "monthly": "month monthly mes mensal cap limit maximo simultaneous simultanea simultaneas prepare preparo "
               "preparar ready",
    "equipment": "gear equipment equipamento equipamentos headset fone microphone mic microfone phone telefone "
                 "distancia",
    "booth": "booth cabine",
    "confidential": "confidential confidentiality confidencialidade nda sigilo privacy privacidade delete apaga "
                    "apago keep guarda guardo retention secret secreto",
    "leisure": "hobby hobbies passatempo passatempos free vagas lazer leisure sing canta cantar choir coral garden "
               "horta jardim",
    "travel": "travel travels viaja viajar viajo fly voar trip trips country pais",
    "meetings": "meeting meetings reuniao reunioes call calls ligacao videochamada",
    "process": "start starts begin begins comeca comecar going kickoff brief briefing drafts draft rascunho "
               "rascunhos sketch sketches esboco rounds rodadas revisions process processo steps etapas",
    "interface": "frontend front interface interfaces ui ux telas tela screens visual",
    "logo": "logo logos logotipo emblem simbolo symbol",
}
